import { costasset, unwrap } from '../api/client';
import type { Anomaly } from '../api/types';
import { bucketLabel, money, number } from '../components/format';
import { Loaded } from '../components/loaded';
import { Card } from '../components/states';
import { useApi } from '../components/use-api';

/** The total's forecast at the end of the month of its latest data, with its 80% interval (asked once the main figures are in). */
export function ForecastKpi({ ready }: { ready: boolean }) {
  const forecast = useApi(
    async () => (ready ? unwrap(costasset.GET('/api/costasset/v1/costs/forecast', { params: { query: {} } })) : undefined),
    [ready],
  );
  const total = forecast.data?.series[0]?.monthEnd;
  const currency = forecast.data?.currency;
  return (
    <div class="kpi" data-testid="forecast-kpi">
      <div class="kpi-label">{total ? `Forecast, end of ${bucketLabel(total.period, true)}` : 'Month-end forecast'}</div>
      <div class="kpi-value" data-testid="forecast-total">
        {total ? money(total.forecast, currency) : forecast.loading ? '…' : '—'}
      </div>
      <div class="kpi-detail">
        {total
          ? `80%: ${money(total.lower, currency, true)} – ${money(total.upper, currency, true)} · ` +
            `${money(total.actual, currency, true)} to ${forecast.data?.asOf}`
          : forecast.error
            ? forecast.error.message
            : forecast.loading
              ? 'forecasting…'
              : 'no recent data to forecast from'}
      </div>
    </div>
  );
}

const seriesOf = (anomaly: Anomaly) =>
  [anomaly.dimensions.providerName, anomaly.dimensions.serviceName].map((value) => value ?? '(none)').join(' · ');

/** Open anomalies: how many, and the largest by impact (asked once the main figures are in). */
export function AnomalyWatch({ ready, currency }: { ready: boolean; currency: string | null | undefined }) {
  const open = useApi(
    async () =>
      ready
        ? (await unwrap(costasset.GET('/api/costasset/v1/anomalies', { params: { query: { status: 'open', limit: 1000 } } }))).items
        : undefined,
    [ready],
  );
  const actions = (
    <a class="button ghost" href="/anomalies">
      All anomalies
    </a>
  );
  return (
    <Card title="Open anomalies" actions={actions}>
      <Loaded state={open}>
        {(items) =>
          items.length === 0 ? (
            <p class="muted" data-testid="open-anomalies" data-count="0">
              No open anomaly: no series cost clearly more than its history predicts.
            </p>
          ) : (
            <div data-testid="open-anomalies" data-count={items.length}>
              <p>
                <strong class="big-number">{number(items.length)}</strong> open {items.length === 1 ? 'anomaly' : 'anomalies'},{' '}
                {money(
                  items.reduce((sum, one) => sum + one.impact, 0),
                  currency,
                )}{' '}
                above the expected cost in all.
              </p>
              <ul class="anomaly-watch">
                {[...items]
                  .sort((a, b) => b.impact - a.impact)
                  .slice(0, 3)
                  .map((anomaly) => (
                    <li key={anomaly.id}>
                      <a href={`/anomalies?from=${anomaly.day}&to=${anomaly.day}`}>{seriesOf(anomaly)}</a>
                      <span class="muted small"> on {anomaly.day}</span>
                      <span class="badge bad">+{money(anomaly.impact, currency)}</span>
                    </li>
                  ))}
              </ul>
            </div>
          )
        }
      </Loaded>
    </Card>
  );
}
