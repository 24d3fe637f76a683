import type { Budget, BudgetaryUnit } from '../api/types';
import { PALETTE } from '../components/chart';
import { bucketLabel, money } from '../components/format';

/** Actual cost per period as bars, the budget as a line, each threshold as a dashed line. */
export function budgetOption(budget: Budget, units: BudgetaryUnit[]) {
  const currency = units[0]?.currency ?? budget.currency;
  const amount = units[0]?.amount ?? budget.amount;
  return {
    tooltip: { trigger: 'axis', valueFormatter: (value: number) => money(value, currency) },
    legend: { bottom: 0 },
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
    ],
  };
}
