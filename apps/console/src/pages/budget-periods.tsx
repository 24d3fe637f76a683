import type { BudgetaryUnit } from '../api/types';
import type { Column } from '../components/data-table';
import { money, percent } from '../components/format';
import { hasForecast } from './budget-chart';

export const thresholdList = (thresholds: number[]) => thresholds.map((threshold) => `${threshold}%`).join(', ');

export const PERIOD_COLUMNS: Column<BudgetaryUnit>[] = [
  { key: 'month', header: 'Month', value: (unit) => unit.period, format: 'month', rowHeader: true },
  { key: 'budget', header: 'Budget', value: (unit) => unit.amount, format: 'money', currency: (unit) => unit.currency },
  {
    key: 'actual',
    header: 'Actual',
    value: (unit) => unit.actual,
    format: 'money',
    currency: (unit) => unit.currency,
    testId: (unit) => `actual-${unit.period}`,
  },
  { key: 'remaining', header: 'Remaining', value: (unit) => unit.remaining, format: 'money', currency: (unit) => unit.currency },
  {
    key: 'used',
    header: 'Used',
    value: (unit) => unit.percentUsed,
    format: 'percent',
    cell: (unit) => (
      <span class={`badge ${unit.percentUsed >= 100 ? 'bad' : unit.thresholdsCrossed.length ? 'warn' : 'ok'}`}>
        {percent(unit.percentUsed, 0)}
      </span>
    ),
  },
  {
    key: 'forecast',
    header: 'Forecast (80%)',
    value: (unit) => (hasForecast(unit) ? unit.forecast : null),
    format: 'money',
    currency: (unit) => unit.currency,
    testId: (unit) => `forecast-${unit.period}`,
    cell: (unit) =>
      hasForecast(unit) ? (
        <span class="forecast-cell">
          <span>{money(unit.forecast!, unit.currency)}</span>
          <span class="muted small">
            {money(unit.forecastLower ?? unit.forecast!, unit.currency)} – {money(unit.forecastUpper ?? unit.forecast!, unit.currency)}
          </span>
        </span>
      ) : (
        <span class="muted">{unit.phase === 'past' ? 'closed' : '—'}</span>
      ),
  },
  {
    key: 'forecastUsed',
    header: 'Forecast used',
    value: (unit) => (hasForecast(unit) ? unit.forecastPercentUsed : null),
    format: 'percent',
    digits: 0,
  },
  {
    key: 'crossed',
    header: 'Thresholds crossed',
    value: (unit) => thresholdList(unit.thresholdsCrossed),
    cell: (unit) => (unit.thresholdsCrossed.length ? thresholdList(unit.thresholdsCrossed) : <span class="muted">none</span>),
  },
  {
    key: 'forecastCrossed',
    header: 'Forecast to exceed',
    value: (unit) => thresholdList(unit.forecastThresholdsCrossed),
    cell: (unit) =>
      unit.forecastThresholdsCrossed.length ? (
        <span class="badge warn">{thresholdList(unit.forecastThresholdsCrossed)}</span>
      ) : (
        <span class="muted">none</span>
      ),
  },
];
