import { useEffect, useMemo, useState } from 'preact/hooks';
import { costasset, unwrap } from '../api/client';
import type { ApiError } from '../api/problem';
import type { Costs } from '../api/types';
import { Chart } from './chart';
import { stackedCostOption } from './cost-chart';
import { money, number } from './format';
import { Loaded } from './loaded';
import { Empty } from './states';

/**
 * What an expression selects, as the cost explorer sums it (12 months by provider); also its live
 * validation: an INVALID_EXPRESSION answer goes to `onProblem` (the editor marks its position).
 */
export function CostPreview({ expression, onProblem }: { expression: string; onProblem: (problem: ApiError | undefined) => void }) {
  const [state, setState] = useState<{ costs?: Costs; error?: ApiError; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      setState((previous) => ({ ...previous, loading: true }));
      unwrap(
        costasset.GET('/api/costasset/v1/costs', {
          params: { query: { groupBy: ['providerName'], top: 8, ...(expression.trim() ? { filter: expression } : {}) } },
        }),
      ).then(
        (costs) => {
          if (!current) return;
          onProblem(undefined);
          setState({ costs, loading: false });
        },
        (error: ApiError) => {
          if (!current) return;
          onProblem(error.position !== undefined ? error : undefined);
          setState({ error, loading: false });
        },
      );
    }, 350);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [expression, tick]);
  const option = useMemo(() => (state.costs ? stackedCostOption(state.costs) : undefined), [state.costs]);
  if (state.error && state.error.position !== undefined) return <p class="muted">Fix the expression to see the costs it selects.</p>;
  return (
    <Loaded
      state={{ data: state.costs, error: state.error, loading: state.loading, reload: () => setTick((value) => value + 1) }}
      label="Summing the selected costs…"
    >
      {(costs) => (
        <div data-testid="cost-preview">
          <p>
            Selects <strong data-testid="preview-total">{money(costs.total, costs.currency)}</strong> over the last 12 months with data (
            {number(costs.series.reduce((sum, series) => sum + series.lineItems, 0))} line items you can see).
          </p>
          {costs.series.length === 0 ? (
            <Empty title="This expression selects no costs." />
          ) : (
            option && <Chart option={option} height={220} label="Monthly cost the expression selects, by provider" />
          )}
        </div>
      )}
    </Loaded>
  );
}
