import type { Budget, BudgetaryUnit } from '../api/types';
import { PALETTE } from '../components/palette';
import { bucketLabel, money, percent } from '../components/format';

const FORECAST_COLOR = '#7c3aed';

/** Whether a period has a forecast of its own (the current one and the next three; a past period's is its actual). */
export const hasForecast = (unit: BudgetaryUnit) => unit.phase !== 'past' && unit.forecast !== null;

/** The tooltip of a period: actual, budget, and its forecast with the 80% interval. */
export function budgetTooltip(unit: BudgetaryUnit): string {
  const lines = [
    `<strong>${bucketLabel(unit.period, true)}</strong>`,
    `Actual: ${money(unit.actual, unit.currency)} (${percent(unit.percentUsed, 0)})`,
    `Budget: ${money(unit.amount, unit.currency)}`,
  ];
  if (hasForecast(unit))
    lines.push(
      `Forecast: ${money(unit.forecast!, unit.currency)} (${percent(unit.forecastPercentUsed ?? 0, 0)}; ` +
        `80%: ${money(unit.forecastLower ?? unit.forecast!, unit.currency)} – ` +
        `${money(unit.forecastUpper ?? unit.forecast!, unit.currency)})`,
    );
  return lines.join('<br>');
}

/**
 * Actual cost per period as bars, the budget as a line, each threshold as a dashed line; the
 * forecast of the current and next periods as a dashed purple line with its 80% interval as a band,
 * and each forecast threshold as a dotted purple line.
 */
export function budgetOption(budget: Budget, units: BudgetaryUnit[]) {
  const currency = units[0]?.currency ?? budget.currency;
  const amount = units[0]?.amount ?? budget.amount;
  const forecasts = units.some(hasForecast);
  const at = (value: (unit: BudgetaryUnit) => number) => units.map((unit) => (hasForecast(unit) ? value(unit) : null));
  const quiet = { type: 'line', symbol: 'none', silent: true, lineStyle: { opacity: 0 }, stack: 'interval' };
  const forecastThresholds = budget.forecastThresholds ?? [];
  return {
    tooltip: { trigger: 'axis', formatter: (params: { dataIndex: number }[]) => budgetTooltip(units[params[0]?.dataIndex ?? 0]) },
    legend: { bottom: 0, data: ['Actual', 'Budget', ...(forecasts ? ['Forecast'] : [])] },
    grid: { left: 8, right: 60, top: 24, bottom: 40, containLabel: true },
    xAxis: { type: 'category', data: units.map((unit) => bucketLabel(unit.period)) },
    yAxis: {
      type: 'value',
      axisLabel: { formatter: (value: number) => money(value, currency, true) },
      splitLine: { lineStyle: { color: '#e2e8f0' } },
    },
    series: [
      {
        name: 'Actual',
        type: 'bar',
        barMaxWidth: 42,
        data: units.map((unit) => ({
          value: unit.actual,
          itemStyle: {
            color: unit.percentUsed >= 100 ? '#ef4444' : unit.percentUsed >= Math.min(...budget.thresholds, 100) ? '#f59e0b' : PALETTE[0],
          },
        })),
        markLine: {
          symbol: 'none',
          lineStyle: { type: 'dashed', color: '#94a3b8' },
          label: { formatter: (params: { value: number }) => `${Math.round((params.value / amount) * 100)}%`, position: 'end' },
          data: budget.thresholds.map((threshold) => ({ yAxis: (amount * threshold) / 100 })),
        },
      },
      {
        name: 'Budget',
        type: 'line',
        step: 'middle',
        symbol: 'none',
        lineStyle: { width: 2, color: '#0f172a' },
        itemStyle: { color: '#0f172a' },
        data: units.map((unit) => unit.amount),
      },
      ...(forecasts
        ? [
            { ...quiet, name: 'Forecast low', data: at((unit) => unit.forecastLower ?? unit.forecast!) },
            {
              ...quiet,
              name: 'Forecast 80% interval',
              areaStyle: { color: FORECAST_COLOR, opacity: 0.14 },
              data: at((unit) => (unit.forecastUpper ?? unit.forecast!) - (unit.forecastLower ?? unit.forecast!)),
            },
            {
              name: 'Forecast',
              type: 'line',
              symbol: 'diamond',
              symbolSize: 9,
              lineStyle: { type: 'dashed', width: 2, color: FORECAST_COLOR },
              itemStyle: { color: FORECAST_COLOR },
              data: at((unit) => unit.forecast!),
              markLine: {
                symbol: 'none',
                lineStyle: { type: 'dotted', color: FORECAST_COLOR },
                label: {
                  formatter: (params: { value: number }) => `forecast ${Math.round((params.value / amount) * 100)}%`,
                  position: 'insideStartTop',
                  color: FORECAST_COLOR,
                },
                data: forecastThresholds.map((threshold) => ({ yAxis: (amount * threshold) / 100 })),
              },
            },
          ]
        : []),
    ],
  };
}
