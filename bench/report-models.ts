/**
 * `npm run bench:report -- --rows 1000000 [--runs 5]`
 * Loads N cost line items into a fresh database of the local stack (driver bulk insert, as data
 * written before rollups existed), lets costasset roll them up (the backfill its first query
 * starts, timed), then runs each report template and three cost-explorer queries through the HTTP
 * API of the real costasset process twice in the same run: through the rollups, and through the
 * raw line items (the same query ANDed with an always-true tag condition, which the planner never
 * answers from rollups). Next to them, the same pipelines sent straight to the database with the
 * driver, over the rollup level that answered and over the line items (what each path costs
 * without HTTP, authentication and planning). Then `costLineItems/totals` the same two ways, and
 * a page of the line-item list filtered by `resourceId`.
 */
import { MongoClient } from 'mongodb';
import { reportPipeline, REPORT_TEMPLATE_IDS } from '../apps/costasset/src/report-models/report-templates';
import { combineFilters, compileExpression } from '../apps/costasset/src/expressions';
import { costsPipeline, LINE_ITEMS_SOURCE, parseGroupings } from '../apps/costasset/src/costs/costs-aggregation';
import { bucketExpression, dayRowsBucket, rangeFilter, resolveRange } from '../apps/costasset/src/costs/costs-range';
import type { CostMetric } from '../apps/costasset/src/costs/dto/costs.query';
import { costTotalsPipeline } from '../apps/costasset/src/line-items/cost-totals';
import { BACKFILL_MARKER } from '../apps/costasset/src/rollups/schemas/cost-rollup.schema';
import { startServices } from './support/services';
import { lineItem, PERIODS } from './support/line-items';
import { numberArg, summarize } from './support/stats';

const BATCH = 10_000;
const ALWAYS_TRUE_ON_TAGS = `(tag('z', 'z' == 'z') || tag('z', 'z' != 'z'))`;

interface Timed {
  ms: number[];
  source?: string;
  level?: string;
  rowsOut: number;
}

const ROLLUP_COLLECTIONS: Record<string, string> = { day: 'cost_rollups', month: 'cost_rollups_monthly' };

async function main(): Promise<void> {
  const rows = numberArg('rows', 1_000_000);
  const runs = numberArg('runs', 5);
  // the raw path over millions of line items is the baseline being measured: it may take longer
  // than a request's default aggregation limit (15 s), which would answer 503
  const services = await startServices('report', { MONGODB_MAX_TIME_AGGREGATE_MS: String(10 * 60_000) });
  const client = await MongoClient.connect(services.env.MONGODB_URI ?? '');
  try {
    const collection = client.db().collection('cost_line_items');
    const loadStart = performance.now();
    for (let offset = 0; offset < rows; offset += BATCH) {
      const size = Math.min(BATCH, rows - offset);
      await collection.insertMany(
        Array.from({ length: size }, (_, k) => lineItem(offset + k)),
        { ordered: false },
      );
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    console.log(
      `loaded ${rows.toLocaleString()} line items in ${loadSeconds.toFixed(1)} s ` +
        `(${Math.round(rows / loadSeconds).toLocaleString()} rows/s, driver bulk insert)`,
    );

    const token = await services.token();
    const get = async (path: string): Promise<{ ms: number; body: Record<string, unknown> }> => {
      const t0 = performance.now();
      const res = await fetch(`${services.costassetUrl}${path}`, { headers: { 'corelite-token': token } });
      const body = (await res.json()) as Record<string, unknown>;
      const ms = performance.now() - t0;
      if (!res.ok) throw new Error(`GET ${path} failed: ${res.status} ${JSON.stringify(body)}`);
      return { ms, body };
    };
    const explorer = (query: Record<string, string>) => `/api/costasset/v1/costs?${new URLSearchParams(query).toString()}`;

    // the first query starts the backfill (one on a month without data: its own raw answer costs
    // nothing); the tenant's marker says when it is done (polled in the database: a query polling
    // through the API would compete with the backfill for the store)
    const keys = client.db().collection('cost_rollup_keys');
    const backfillStart = performance.now();
    await get(explorer({ from: '209901', to: '209901' }));
    while (!(await keys.findOne({ tenantId: 'default', uploadRefId: BACKFILL_MARKER })))
      await new Promise((resolve) => setTimeout(resolve, 100));
    const backfillSeconds = (performance.now() - backfillStart) / 1000;
    const rollupRows = await client.db().collection('cost_rollups').countDocuments({ tenantId: 'default' });
    const monthlyRows = await client.db().collection('cost_rollups_monthly').countDocuments({ tenantId: 'default' });
    console.log(
      `rolled up in ${backfillSeconds.toFixed(1)} s (${((backfillSeconds * 1e6) / rows).toFixed(1)} ` +
        `µs per line item, ${((backfillSeconds / loadSeconds) * 100).toFixed(0)}% of the bulk load): ` +
        `${rollupRows.toLocaleString()} daily rollup rows (${((rollupRows / rows) * 100).toFixed(2)}% ` +
        `of the line items), ${monthlyRows.toLocaleString()} monthly`,
    );
    const health: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const t0 = performance.now();
      await fetch(`${services.costassetUrl}/health/live`);
      health.push(performance.now() - t0);
    }
    console.log(`HTTP round trip of /health/live (no auth, no database): p50 ${summarize(health).p50.toFixed(1)} ms`);

    const time = async (path: string): Promise<Timed> => {
      const timed: Timed = { ms: [], rowsOut: 0 };
      for (let run = 0; run < runs; run += 1) {
        const { ms, body } = await get(path);
        timed.ms.push(ms);
        timed.source = String(body.source);
        timed.level = String(body.rollupLevel);
        timed.rowsOut = ((body.rows ?? body.series ?? body.groups) as unknown[] | undefined)?.length ?? 0;
      }
      return timed;
    };
    const table: string[] = [
      '| query | rows out | rollup level (rows read) | rollup p50 ms | rollup p95 ms | line ' +
        'items p50 ms | line items p95 ms | line items / rollup | DB rollup p50 ms | DB raw p50 ms |',
      '|---|---|---|---|---|---|---|---|---|---|',
    ];
    /** p50 of a pipeline sent straight to a collection with the driver. */
    const direct = async (name: string, pipeline: object[]): Promise<number> => {
      const ms: number[] = [];
      for (let run = 0; run < runs; run += 1) {
        const t1 = performance.now();
        await client.db().collection(name).aggregate(pipeline).toArray();
        ms.push(performance.now() - t1);
      }
      return summarize(ms).p50;
    };
    const line = async (
      name: string,
      rollup: Timed,
      raw: Timed,
      pipelines: { rollup: (level: string) => object[]; raw?: object[] },
      // the collection the rollups answered from, when it is not the level's own (the rows by resource)
      rollupCollection?: string,
    ) => {
      const r = summarize(rollup.ms);
      const l = summarize(raw.ms);
      const answered = rollup.source === 'rollup';
      const label = answered ? name : `${name} (answered from ${rollup.source})`;
      const collection = rollupCollection ?? ROLLUP_COLLECTIONS[rollup.level ?? ''];
      const rollupPipeline = collection ? pipelines.rollup(rollup.level as string) : [];
      const read = collection
        ? await client
            .db()
            .collection(collection)
            .countDocuments((rollupPipeline[0] as { $match: object }).$match)
        : 0;
      const dbRollup = answered && collection ? (await direct(collection, rollupPipeline)).toFixed(1) : '–';
      // (the explorer's raw path is timed through the API only: at millions of rows each run takes long)
      const dbRaw = pipelines.raw ? (await direct('cost_line_items', pipelines.raw)).toFixed(0) : '–';
      const level = answered ? `${rollup.level} (${read.toLocaleString()})` : '–';
      // each line is printed as soon as it is measured, so that a run cut short keeps what it measured
      console.log(`measured: ${label}: rollup p50 ${r.p50.toFixed(1)} ms, line items p50 ${l.p50.toFixed(0)} ms, DB rollup ${dbRollup} ms`);
      table.push(
        `| ${label} | ${rollup.rowsOut} | ${level} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ` +
          `${l.p50.toFixed(0)} | ${l.p95.toFixed(0)} | ${(l.p50 / r.p50).toFixed(1)}x | ${dbRollup} | ${dbRaw} |`,
      );
    };

    const params = { period: '202406' };
    const expr = 'period == ${period}';
    const filter = { ...compileExpression(expr, params), tenantId: 'default' };
    for (const templateId of REPORT_TEMPLATE_IDS) {
      const ids: string[] = [];
      for (const [suffix, text] of [
        ['', expr],
        ['-raw', `${expr} && ${ALWAYS_TRUE_ON_TAGS}`],
      ]) {
        const id = `bench-${templateId}${suffix}`;
        const created = await fetch(`${services.costassetUrl}/api/costasset/v1/reportModels/${id}?templateId=${templateId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'corelite-token': token },
          body: JSON.stringify({ append: false, type: 'v1', vtags: [], expr: text }),
        });
        if (!created.ok) throw new Error(`creating the ${id} model failed: ${created.status} ${await created.text()}`);
        ids.push(id);
      }
      const execution = (id: string) =>
        `/api/costasset/v1/reportModels/${id}/execution?templateParams=${encodeURIComponent(JSON.stringify(params))}`;
      const rollup = await time(execution(ids[0]));
      const raw = await time(execution(ids[1]));
      await line(
        templateId,
        rollup,
        raw,
        { rollup: () => reportPipeline(templateId, filter, '$lineItems') as object[], raw: reportPipeline(templateId, filter) as object[] },
        templateId === 'top-resources' ? 'cost_rollups_monthly_resources' : undefined,
      );
    }

    const queries: [string, Record<string, string>][] = [
      ['costs: 12 months by provider', { from: '202401', to: '202412', groupBy: 'providerName' }],
      [
        'costs: June by day, service and region, top 10',
        { from: '202406', to: '202406', granularity: 'day', groupBy: 'serviceName,region' },
      ],
      [
        'costs: billed cost by account, filtered, 2 quarters',
        {
          from: '202401',
          to: '202406',
          groupBy: 'billingAccountId',
          metric: 'billedCost',
          filter: 'providerName != "ibm" && category != "Category 3"',
        },
      ],
    ];
    for (const [name, query] of queries) {
      const rollup = await time(explorer(query));
      const raw = await time(
        explorer({ ...query, filter: query.filter ? `(${query.filter}) && ${ALWAYS_TRUE_ON_TAGS}` : ALWAYS_TRUE_ON_TAGS }),
      );
      // the explorer's pipeline as costasset builds it (an admin sees everything: no visibility filter)
      const range = resolveRange(
        { from: query.from, to: query.to, granularity: query.granularity as 'day' | 'month' | undefined },
        query.to,
      );
      const plan = {
        range,
        groupBy: parseGroupings(query.groupBy.split(',')),
        metric: (query.metric ?? 'cost') as CostMetric,
        top: 10,
        match: { ...combineFilters(rangeFilter(range), query.filter ? compileExpression(query.filter) : {}), tenantId: 'default' },
      };
      const rollupSource = (level: string) => ({
        ...LINE_ITEMS_SOURCE,
        name: 'rollup' as const,
        count: '$lineItems',
        bucket: level === 'day' ? dayRowsBucket : bucketExpression,
      });
      await line(name, rollup, raw, { rollup: (level) => costsPipeline(plan, rollupSource(level)) as object[] });
    }

    // line-item totals: the same filters as the list, answered from rollups when they can
    const totalsQueries: [string, Record<string, string>][] = [
      ['totals: by provider and service category', { groupBy: 'providerName,category' }],
      ['totals: June by account, one provider', { groupBy: 'billingAccountId', period: '202406', providerName: 'aws' }],
    ];
    const totalsPath = (query: Record<string, string>) => `/api/costasset/v1/costLineItems/totals?${new URLSearchParams(query).toString()}`;
    for (const [name, { groupBy, ...filters }] of totalsQueries) {
      const rollup = await time(totalsPath({ groupBy, ...filters }));
      const raw = await time(totalsPath({ groupBy, ...filters, expr: ALWAYS_TRUE_ON_TAGS }));
      const fields = groupBy.split(',');
      const match = { ...filters, tenantId: 'default' };
      await line(name, rollup, raw, {
        rollup: () => costTotalsPipeline(match, fields, 'rollup') as object[],
        raw: costTotalsPipeline(match, fields, 'line-items') as object[],
      });
    }
    // a page of the list filtered by a resource (on its own index: tenant, resource, then _id)
    const resourcePage: number[] = [];
    for (let run = 0; run < runs; run += 1)
      resourcePage.push((await get('/api/costasset/v1/costLineItems?resourceId=res-4242&limit=100')).ms);
    console.log(
      `measured: line-item page filtered by resourceId (${Math.round(rows / 10_000)} matching, ` +
        `pages of up to 100): p50 ${summarize(resourcePage).p50.toFixed(1)} ms`,
    );

    console.log(
      `\n${rows.toLocaleString()} line items (${rollupRows.toLocaleString()} daily and ${monthlyRows.toLocaleString()} ` +
        `monthly rollup rows), report filter period == 202406 (${Math.round(rows / PERIODS.length).toLocaleString()} ` +
        `matching), ${runs} runs each, ${new Date().toISOString().slice(0, 10)}:\n`,
    );
    console.log(table.join('\n'));
    await client.db().dropDatabase();
  } finally {
    await client.close();
    await services.stop();
  }
}

main().catch((error: Error) => {
  console.error(`bench:report: ${error.message}`);
  process.exit(1);
});
