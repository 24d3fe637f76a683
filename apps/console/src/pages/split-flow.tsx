import type { ShowbackSplit } from '../api/types';
import { money } from '../components/format';
import { PALETTE } from '../components/palette';
import { Empty } from '../components/states';
import { FLOW, flowLayout } from './split-logic';

/**
 * Where a month's shared cost goes, drawn by hand in SVG (no chart library): each split rule on the
 * left with the cost its source took, each value it gave to on the right with what it received, and
 * a band per share, as wide as its amount, labelled with it.
 */
export function SplitFlow({ splits, currency, period }: { splits: readonly ShowbackSplit[]; currency: string; period: string }) {
  if (splits.length === 0)
    return <Empty title="No split rules applied">Nothing was split this month: no split rule is saved, or none took any cost.</Empty>;
  const layout = flowLayout(splits);
  const colorOf = (rule: string) => PALETTE[splits.findIndex((split) => split.name === rule) % PALETTE.length];
  const description = splits
    .map(
      (split) =>
        `${split.name} takes ${money(split.source, currency)} and gives ` +
        (split.shares.length ? split.shares.map((share) => `${money(share.amount, currency)} to ${share.value}`).join(', ') : 'nothing'),
    )
    .join('; ');
  return (
    <figure class="split-flow" data-testid="split-flow" data-period={period}>
      <svg
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        width="100%"
        style={{ maxWidth: `${layout.width}px` }}
        role="img"
        aria-labelledby="split-flow-title split-flow-desc"
      >
        <title id="split-flow-title">Where the shared cost goes</title>
        <desc id="split-flow-desc">{description}</desc>
        {layout.bands.map((band) => (
          <g
            key={`${band.rule}→${band.value}`}
            data-testid="flow-band"
            data-rule={band.rule}
            data-value={band.value}
            data-amount={band.amount}
          >
            <path d={band.path} fill={colorOf(band.rule)} fill-opacity="0.28" stroke={colorOf(band.rule)} stroke-opacity="0.5">
              <title>
                {band.rule} → {band.value}: {money(band.amount, currency)}
              </title>
            </path>
            <text class="flow-band-label" x={band.labelX} y={band.labelY} text-anchor="middle" dominant-baseline="middle">
              {money(band.amount, currency)}
            </text>
          </g>
        ))}
        {layout.sources.map((node) => (
          <g key={node.key} data-testid="flow-source" data-rule={node.key} data-amount={node.amount}>
            <rect x={node.x} y={node.y} width={FLOW.bar} height={Math.max(node.height, 1)} rx="2" fill={colorOf(node.key)} />
            <text class="flow-name" x={node.x - 8} y={node.labelY - 7} text-anchor="end">
              {node.label}
            </text>
            <text class="flow-amount" x={node.x - 8} y={node.labelY + 10} text-anchor="end">
              {money(node.amount, currency)}
            </text>
          </g>
        ))}
        {layout.targets.map((node) => (
          <g key={node.key} data-testid="flow-target" data-value={node.key} data-amount={node.amount}>
            <rect x={node.x} y={node.y} width={FLOW.bar} height={Math.max(node.height, 1)} rx="2" class="flow-target-bar" />
            <text class="flow-name" x={node.x + FLOW.bar + 8} y={node.labelY - 7}>
              {node.label}
            </text>
            <text class="flow-amount" x={node.x + FLOW.bar + 8} y={node.labelY + 10}>
              {money(node.amount, currency)}
            </text>
          </g>
        ))}
      </svg>
      <figcaption class="muted small">
        Left: each split rule and the cost its source took; right: what each value received. A band&rsquo;s width is its amount.
      </figcaption>
    </figure>
  );
}
