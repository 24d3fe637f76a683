import { describe, expect, it } from '@jest/globals';
import {
  anomalyQuery,
  apiQuery,
  dimensionLabel,
  exportQuery,
  forecastQuery,
  fromInput,
  monthsBetween,
  toInput,
  urlOf,
  type View,
  viewOf,
} from './explorer-view';

/** The address's query as the router hands it to the page (preact-iso: URL search params). */
const queryOf = (href: string) => Object.fromEntries(new URL(href, 'http://console').searchParams);

const DEFAULT_VIEW: View = {
  groupBy: ['providerName'],
  filter: '',
  from: '',
  to: '',
  granularity: 'month',
  metric: 'cost',
  top: 10,
  chart: 'bar',
};

describe('cost explorer: the view in the address', () => {
  it('opens the default view on a bare address', () => {
    expect(viewOf({})).toEqual(DEFAULT_VIEW);
    expect(urlOf(DEFAULT_VIEW)).toBe('/explorer?groupBy=providerName');
  });

  it('reads every setting, and ignores what it does not know', () => {
    expect(
      viewOf({
        groupBy: 'serviceName,region',
        filter: 'providerName == "aws"',
        from: '202401',
        to: '202403',
        granularity: 'day',
        metric: 'listCost',
        top: '20',
        chart: 'area',
      }),
    ).toEqual({
      groupBy: ['serviceName', 'region'],
      filter: 'providerName == "aws"',
      from: '202401',
      to: '202403',
      granularity: 'day',
      metric: 'listCost',
      top: 20,
      chart: 'area',
    });
    expect(viewOf({ granularity: 'week', metric: 'madeUpCost', top: '999', chart: 'pie' })).toMatchObject({
      granularity: 'month',
      metric: 'cost',
      top: 50,
      chart: 'bar',
    });
    expect(viewOf({ groupBy: 'a,b,c,d' }).groupBy).toEqual(['a', 'b', 'c']);
  });

  it('keeps "no grouping" (the total) apart from the default grouping', () => {
    const total = { ...DEFAULT_VIEW, groupBy: [] };
    expect(urlOf(total)).toBe('/explorer?groupBy=');
    expect(viewOf(queryOf(urlOf(total))).groupBy).toEqual([]);
  });

  it('writes only what differs from the default, and a range only with both ends', () => {
    expect(urlOf({ ...DEFAULT_VIEW, from: '202401' })).toBe('/explorer?groupBy=providerName');
    expect(urlOf({ ...DEFAULT_VIEW, top: 20, chart: 'area' })).toBe('/explorer?groupBy=providerName&top=20&chart=area');
  });

  it('reads back every view it writes', () => {
    const views: View[] = [
      DEFAULT_VIEW,
      {
        groupBy: ['tag:team:owner', 'serviceName'],
        filter: 'tag("team", "owner" == "alpha") && region != "us-east-1"',
        from: '2024-01-01',
        to: '2024-01-31',
        granularity: 'day',
        metric: 'effectiveCost',
        top: 5,
        chart: 'area',
      },
      { ...DEFAULT_VIEW, groupBy: [], filter: 'a == "x&y=z"', from: '202312', to: '202402' },
    ];
    for (const view of views) expect(viewOf(queryOf(urlOf(view)))).toEqual(view);
  });

  it('asks the API for what the view shows', () => {
    expect(apiQuery(DEFAULT_VIEW)).toEqual({ groupBy: ['providerName'], granularity: 'month', metric: 'cost', top: 10 });
    expect(apiQuery({ ...DEFAULT_VIEW, groupBy: [], filter: '  ', from: '202401', to: '' })).toEqual({
      granularity: 'month',
      metric: 'cost',
      top: 10,
    });
    expect(apiQuery({ ...DEFAULT_VIEW, filter: 'x == "1"', from: '202401', to: '202402' })).toMatchObject({
      filter: 'x == "1"',
      from: '202401',
      to: '202402',
    });
  });

  it('names dimensions and tags', () => {
    expect(dimensionLabel('assetAccountId')).toBe('Sub-account');
    expect(dimensionLabel('tag:team:owner')).toBe('Tag team:owner');
    expect(dimensionLabel('dimension:environment')).toBe('Dimension environment');
    expect(dimensionLabel('somethingElse')).toBe('somethingElse');
  });
});

describe('cost explorer: ranges and the FOCUS export', () => {
  it('lists the months of a range of months or of days, across years, up to a limit', () => {
    expect(monthsBetween('202311', '202402')).toEqual(['202311', '202312', '202401', '202402']);
    expect(monthsBetween('2024-01-15', '2024-02-03')).toEqual(['202401', '202402']);
    expect(monthsBetween('202402', '202402')).toEqual(['202402']);
    expect(monthsBetween('202403', '202401')).toEqual([]);
    expect(monthsBetween('200001', '209912', 3)).toEqual(['200001', '200002', '200003']);
  });

  it('exports the line items of the months shown, within the filter', () => {
    expect(exportQuery('', { from: '202401', to: '202401' })).toEqual({ expr: "period == '202401'" });
    expect(exportQuery('providerName == "aws"', { from: '202401', to: '202402' })).toEqual({
      expr: `(providerName == "aws") && (period == '202401' || period == '202402')`,
    });
    expect(exportQuery('  ', { from: '2024-01-30', to: '2024-01-31' })).toEqual({ expr: "period == '202401'" });
  });

  it('converts range bounds for month and date inputs and back', () => {
    expect(toInput('202402', false, false)).toBe('2024-02');
    expect(toInput('2024-02-10', false, true)).toBe('2024-02');
    expect(toInput('202402', true, false)).toBe('2024-02-01');
    expect(toInput('202402', true, true)).toBe('2024-02-29');
    expect(toInput('202312', true, true)).toBe('2023-12-31');
    expect(toInput('2024-02-10', true, false)).toBe('2024-02-10');
    expect(toInput('', true, false)).toBe('');
    expect(fromInput('2024-02', false)).toBe('202402');
    expect(fromInput('2024-02-10', true)).toBe('2024-02-10');
  });
});

describe('the overlays of a view', () => {
  it("asks the forecast with the view's groupings, filter, metric and top N only", () => {
    const view = viewOf(
      queryOf('/explorer?groupBy=providerName,region&filter=a&from=202401&to=202403&granularity=day&metric=listCost&top=4'),
    );
    expect(forecastQuery(view)).toEqual({ groupBy: ['providerName', 'region'], filter: 'a', metric: 'listCost', top: 4 });
    expect(forecastQuery(viewOf(queryOf('/explorer?groupBy=')))).toEqual({ metric: 'cost', top: 10 });
  });

  it("asks the anomalies of the range in days (whole months), or of the API's default range", () => {
    expect(anomalyQuery(viewOf(queryOf('/explorer?from=202401&to=202402')))).toEqual({ from: '2024-01-01', to: '2024-02-29', limit: 1000 });
    expect(anomalyQuery(viewOf(queryOf('/explorer?granularity=day&from=2024-01-05&to=2024-01-09')))).toEqual({
      from: '2024-01-05',
      to: '2024-01-09',
      limit: 1000,
    });
    expect(anomalyQuery(viewOf({}))).toEqual({ limit: 1000 });
  });
});
