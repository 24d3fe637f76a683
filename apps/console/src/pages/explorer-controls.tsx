import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../api/problem';
import type { Costs } from '../api/types';
import { ExpressionInput } from '../components/expression-input';
import { SelectField } from '../components/forms';
import { Card } from '../components/states';
import { DIMENSIONS, fromInput, METRICS, toInput, type View } from './explorer-view';

const FILTER_HINT = 'e.g. providerName == "aws" && region != "us-east-1" or tag("team", "owner" == "alpha")';

function GroupingSelect({
  index,
  value,
  onChange,
  choices,
}: {
  index: number;
  value: string | undefined;
  onChange: (value: string | undefined) => void;
  choices: readonly (readonly [string, string])[];
}) {
  // a grouping of the allocation (a dimension, an activated tag key) is a choice of its own; a
  // dimension the address names but the list lacks too (a member's link); any other tag is typed
  const known = value !== undefined && (choices.some(([choice]) => choice === value) || value.startsWith('dimension:'));
  const [typing, setTyping] = useState(false);
  const isTag = !known && (value?.startsWith('tag:') ?? false);
  const typed = isTag || typing;
  const [tag, setTag] = useState(isTag ? value!.slice(4) : '');
  useEffect(() => setTag(isTag ? value!.slice(4) : ''), [value]);
  const extra = known && !choices.some(([choice]) => choice === value) ? [[value!, value!] as const] : [];
  const id = `group-${index}`;
  return (
    <div class="field grouping">
      <label for={id}>{index === 0 ? 'Group by' : index === 1 ? 'Then by' : 'And by'}</label>
      <div class="inline">
        <select
          id={id}
          value={typed ? 'tag' : (value ?? '')}
          onChange={(event) => {
            const selected = (event.target as HTMLSelectElement).value;
            setTyping(selected === 'tag');
            onChange(selected === '' ? undefined : selected === 'tag' ? `tag:${tag || 'team:owner'}` : selected);
          }}
        >
          <option value="">{index === 0 ? 'Nothing (total)' : '—'}</option>
          {DIMENSIONS.map(([dimension, label]) => (
            <option value={dimension} key={dimension}>
              {label}
            </option>
          ))}
          {(choices.length > 0 || extra.length > 0) && (
            <optgroup label="Allocation">
              {[...choices, ...extra].map(([choice, label]) => (
                <option value={choice} key={choice}>
                  {label}
                </option>
              ))}
            </optgroup>
          )}
          <option value="tag">Tag…</option>
        </select>
        {typed && (
          <input
            aria-label={`Tag to group by (group:key), grouping ${index + 1}`}
            class="mono tag-input"
            value={tag}
            placeholder="group:key"
            onChange={(event) => onChange(`tag:${(event.target as HTMLInputElement).value}`)}
          />
        )}
      </div>
    </div>
  );
}

/** The explorer's controls: groupings, granularity, range, metric, number of series, chart, and the filter. */
export function ExplorerControls({
  view,
  shown,
  setView,
  filterDraft,
  setFilterDraft,
  problem,
  choices = [],
}: {
  view: View;
  shown?: Costs;
  setView: (changes: Partial<View>) => void;
  filterDraft: string;
  setFilterDraft: (filter: string) => void;
  problem?: ApiError;
  /** Groupings beyond the built-in ones: the dimensions and activated tag keys (`[value, label]`). */
  choices?: readonly (readonly [string, string])[];
}) {
  const day = view.granularity === 'day';
  const groupings: (string | undefined)[] = [0, 1, 2].map((index) => view.groupBy[index]);
  const setGrouping = (index: number, value: string | undefined) => {
    const next = [...groupings];
    next[index] = value;
    setView({ groupBy: next.filter((entry): entry is string => entry !== undefined) });
  };
  const bound = (which: 'from' | 'to') => toInput(view[which] || shown?.[which] || '', day, which === 'to');
  return (
    <Card class="controls">
      <div class="control-grid">
        {groupings.map((value, index) =>
          index === 0 || groupings[index - 1] !== undefined || value !== undefined ? (
            <GroupingSelect key={index} index={index} value={value} choices={choices} onChange={(next) => setGrouping(index, next)} />
          ) : null,
        )}
        <SelectField
          id="granularity"
          label="Granularity"
          value={view.granularity}
          options={[
            ['month', 'Monthly'],
            ['day', 'Daily'],
          ]}
          onValue={(value) => {
            const next = value as View['granularity'];
            const month = shown?.to && shown.to.length === 6 ? shown.to : undefined;
            setView({ granularity: next, from: next === 'day' && month ? month : '', to: next === 'day' && month ? month : '' });
          }}
        />
        <div class="field">
          <label for="from">From</label>
          <input
            id="from"
            type={day ? 'date' : 'month'}
            value={bound('from')}
            onChange={(event) =>
              setView({ from: fromInput((event.target as HTMLInputElement).value, day), to: fromInput(bound('to'), day) })
            }
          />
        </div>
        <div class="field">
          <label for="to">To</label>
          <input
            id="to"
            type={day ? 'date' : 'month'}
            value={bound('to')}
            onChange={(event) =>
              setView({ to: fromInput((event.target as HTMLInputElement).value, day), from: fromInput(bound('from'), day) })
            }
          />
        </div>
        <SelectField
          id="metric"
          label="Metric"
          value={view.metric}
          options={METRICS}
          onValue={(metric) => setView({ metric: metric as View['metric'] })}
        />
        <SelectField
          id="top"
          label="Series"
          value={String(view.top)}
          options={[5, 10, 20, 50].map((top) => [String(top), `Top ${top}`] as const)}
          onValue={(top) => setView({ top: Number(top) })}
        />
        <SelectField
          id="chart-kind"
          label="Chart"
          value={view.chart}
          options={[
            ['bar', 'Stacked bars'],
            ['area', 'Stacked area'],
          ]}
          onValue={(chart) => setView({ chart: chart as View['chart'] })}
        />
      </div>
      <ExpressionInput
        id="filter"
        label="Filter"
        value={filterDraft}
        onInput={setFilterDraft}
        onEnter={() => setView({ filter: filterDraft })}
        error={problem}
        placeholder='providerName == "aws"'
        hint={FILTER_HINT}
      />
    </Card>
  );
}
