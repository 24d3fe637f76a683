import { useEffect, useRef } from 'preact/hooks';
import type { EChartsCoreOption } from 'echarts/core';
import { PALETTE } from './palette';

export { OTHER_COLOR, PALETTE } from './palette';
/** The page's font, named (the SVG renderer measures legend text with it; `inherit` would measure wrong). */
const FONT = "Inter, 'Segoe UI', system-ui, -apple-system, Roboto, 'Helvetica Neue', Arial, sans-serif";

type ChartInstance = {
  setOption(option: EChartsCoreOption, notMerge?: boolean): void;
  resize(): void;
  dispose(): void;
  on(event: string, handler: () => void): void;
};

/**
 * One chart. ECharts is imported the first time a chart is drawn, so pages without charts and the
 * first paint never load it. `label` is the chart's accessible name; `onRendered` fires once the
 * first frame is drawn.
 */
export function Chart({
  option,
  height = 320,
  label,
  onRendered,
}: {
  option: EChartsCoreOption;
  height?: number;
  label: string;
  onRendered?: () => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<ChartInstance>();
  const rendered = useRef(onRendered);
  rendered.current = onRendered;

  useEffect(() => {
    let disposed = false;
    let observer: ResizeObserver | undefined;
    void import('./echarts').then(({ echarts }) => {
      if (disposed || !container.current) return;
      const instance = echarts.init(container.current, undefined, { renderer: 'svg' }) as unknown as ChartInstance;
      chart.current = instance;
      let first = true;
      instance.on('rendered', () => {
        if (first) rendered.current?.();
        first = false;
      });
      instance.setOption(
        { color: PALETTE, aria: { enabled: true }, animationDuration: 300, textStyle: { fontFamily: FONT }, ...option },
        true,
      );
      observer = new ResizeObserver(() => instance.resize());
      observer.observe(container.current);
    });
    return () => {
      disposed = true;
      observer?.disconnect();
      chart.current?.dispose();
      chart.current = undefined;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption(
      { color: PALETTE, aria: { enabled: true }, animationDuration: 300, textStyle: { fontFamily: FONT }, ...option },
      true,
    );
  }, [option]);

  return <div ref={container} class="chart" role="img" aria-label={label} style={{ height: `${height}px` }} />;
}
