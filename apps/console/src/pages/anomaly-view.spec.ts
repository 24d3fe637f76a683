import { describe, expect, it } from '@jest/globals';
import { addDays, anomaliesHref, anomalyApiQuery, anomalyExplorerHref, anomalyFilterOf, seriesFilter, transitions } from './anomaly-view';
import { viewOf } from './explorer-view';

const TODAY = new Date('2026-06-20T15:00:00Z');

describe('the anomalies page state', () => {
  it('defaults to the last 30 days and open anomalies, and leaves the defaults out of the address', () => {
    const filter = anomalyFilterOf({}, TODAY);
    expect(filter).toEqual({ from: '2026-05-22', to: '2026-06-20', status: 'open' });
    expect(anomaliesHref(filter, TODAY)).toBe('/anomalies');
    expect(anomalyApiQuery(filter)).toEqual({ from: '2026-05-22', to: '2026-06-20', status: 'open', limit: 1000 });
  });

  it('reads back what it writes; anything unknown takes its default', () => {
    const filter = { from: '2026-01-01', to: '2026-01-31', status: 'all' as const };
    const href = anomaliesHref(filter, TODAY);
    expect(href).toBe('/anomalies?from=2026-01-01&to=2026-01-31&status=all');
    expect(anomalyFilterOf(Object.fromEntries(new URL(href, 'http://x').searchParams), TODAY)).toEqual(filter);
    expect(anomalyApiQuery(filter)).toEqual({ from: '2026-01-01', to: '2026-01-31', limit: 1000 });
    expect(anomalyFilterOf({ from: 'yesterday', status: 'maybe' }, TODAY)).toEqual(anomalyFilterOf({}, TODAY));
  });

  it('offers the status changes that make sense', () => {
    expect(transitions('open').map(([status]) => status)).toEqual(['acknowledged', 'dismissed']);
    expect(transitions('acknowledged').map(([status]) => status)).toEqual(['dismissed', 'open']);
    expect(transitions('dismissed')).toEqual([['open', 'Reopen']]);
  });
});

describe('the explorer link of an anomaly', () => {
  it('selects its series (quoted, a missing value left out)', () => {
    expect(seriesFilter({ providerName: 'aws', billingAccountId: null, serviceName: 'say "hi" $5 \\o/' })).toBe(
      'providerName == "aws" && serviceName == "say \\"hi\\" \\$5 \\\\o/"',
    );
  });

  it('shows it by day, two weeks before to a week after, never past today', () => {
    const dimensions = { providerName: 'AWS', billingAccountId: '1', serviceName: 'EC2' };
    const href = anomalyExplorerHref({ day: '2026-06-01', dimensions }, TODAY);
    const view = viewOf(Object.fromEntries(new URL(href, 'http://x').searchParams));
    expect(view).toMatchObject({ groupBy: ['serviceName'], granularity: 'day', from: '2026-05-18', to: '2026-06-08' });
    expect(view.filter).toBe('providerName == "AWS" && billingAccountId == "1" && serviceName == "EC2"');
    expect(
      viewOf(Object.fromEntries(new URL(anomalyExplorerHref({ day: '2026-06-18', dimensions }, TODAY), 'http://x').searchParams)).to,
    ).toBe('2026-06-20');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });
});
