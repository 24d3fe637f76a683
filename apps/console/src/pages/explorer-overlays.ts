import { costasset, unwrap } from '../api/client';
import type { Anomaly, CostsForecast } from '../api/types';
import { type ApiState, useApi } from '../components/use-api';
import { anomalyQuery, forecastQuery, type View } from './explorer-view';

/**
 * The forecast and the anomalies of the explorer's view, asked at the same time as the costs and
 * never waited for: the chart is drawn with the costs and gains its overlays when they answer. A
 * problem of either (a grouping the forecast refuses, say) only leaves its overlay out.
 */
export function useOverlays(
  view: View,
  enabled: boolean,
): { forecast: ApiState<CostsForecast | undefined>; anomalies: ApiState<Anomaly[] | undefined> } {
  const monthly = enabled && view.granularity === 'month';
  const forecast = useApi(
    () =>
      monthly
        ? unwrap(costasset.GET('/api/costasset/v1/costs/forecast', { params: { query: forecastQuery(view) } }))
        : Promise.resolve(undefined),
    [monthly, view.groupBy.join(','), view.filter, view.metric, view.top],
  );
  const anomalies = useApi(
    async () =>
      enabled ? (await unwrap(costasset.GET('/api/costasset/v1/anomalies', { params: { query: anomalyQuery(view) } }))).items : undefined,
    [enabled, view.from, view.to],
  );
  return { forecast, anomalies };
}
