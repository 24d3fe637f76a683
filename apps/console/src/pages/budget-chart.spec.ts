import { describe, expect, it } from '@jest/globals';
import type { Budget, BudgetaryUnit } from '../api/types';
import { budgetOption, budgetTooltip, hasForecast } from './budget-chart';

const unit = (period: string, phase: BudgetaryUnit['phase'], actual: number, forecast: number | null): BudgetaryUnit =>
  ({
    period,
    phase,
    actual,
    amount: 1000,
    currency: 'USD',
    percentUsed: actual / 10,
    forecast,
    forecastLower: forecast === null ? null : forecast - 100,
    forecastUpper: forecast === null ? null : forecast + 100,
    forecastPercentUsed: forecast === null ? null : forecast / 10,
  }) as BudgetaryUnit;

describe('the budget chart', () => {
  const budget = { name: 'B', amount: 1000, currency: 'USD', thresholds: [80], forecastThresholds: [100] } as Budget;
  const units = [unit('202605', 'past', 900, 900), unit('202606', 'current', 400, 950), unit('202607', 'future', 0, 1000)];

  it('draws the forecast of the current and next periods, dashed, with its interval and forecast thresholds', () => {
    expect(units.map(hasForecast)).toEqual([false, true, true]);
    const option = budgetOption(budget, units) as unknown as {
      series: { name: string; data: unknown[]; lineStyle?: { type?: string }; markLine?: { data: unknown[] } }[];
    };
    const byName = Object.fromEntries(option.series.map((series) => [series.name, series]));
    expect(byName.Forecast.data).toEqual([null, 950, 1000]);
    expect(byName.Forecast.lineStyle?.type).toBe('dashed');
    expect(byName.Forecast.markLine?.data).toEqual([{ yAxis: 1000 }]);
    expect(byName['Forecast low'].data).toEqual([null, 850, 900]);
    expect(byName['Forecast 80% interval'].data).toEqual([null, 200, 200]);
  });

  it('leaves the forecast out when no period has one, and says it in the tooltip when one has', () => {
    const names = (budgetOption(budget, [units[0]]) as unknown as { series: { name: string }[] }).series.map((series) => series.name);
    expect(names).toEqual(['Actual', 'Budget']);
    expect(budgetTooltip(units[1])).toContain('Forecast: $950.00 (95%; 80%: $850.00 – $1,050.00)');
    expect(budgetTooltip(units[0])).not.toContain('Forecast');
  });
});
