/**
 * `npm run bench:report -- --rows 1000000 [--runs 5]`
 * Loads N cost line items into a fresh database of the local stack, creates one report model per
 * template, runs each through the HTTP API of the real costasset process, and prints per-template
 * latency next to a baseline measured in the same run: the same aggregation pipeline sent
 * straight to the database with the driver (so the ratio is what the API, auth, visibility and
 * expression compilation add on top of the database work).
 */
import { MongoClient } from 'mongodb';
import { reportPipeline, REPORT_TEMPLATE_IDS } from '../apps/costasset/src/report-models/report-templates';
import { compileExpression } from '../apps/costasset/src/expressions';
import { startServices } from './support/services';
import { lineItem, PERIODS } from './support/line-items';
import { numberArg, summarize } from './support/stats';

const BATCH = 10_000;

async function main(): Promise<void> {
  const rows = numberArg('rows', 1_000_000);
  const runs = numberArg('runs', 5);
  const services = await startServices('report');
  const client = await MongoClient.connect(services.env.MONGODB_URI ?? '');
  try {
    const collection = client.db().collection('cost_line_items');
    const loadStart = performance.now();
    for (let offset = 0; offset < rows; offset += BATCH) {
      const size = Math.min(BATCH, rows - offset);
      await collection.insertMany(Array.from({ length: size }, (_, k) => lineItem(offset + k)), { ordered: false });
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    console.log(`loaded ${rows.toLocaleString()} line items in ${loadSeconds.toFixed(1)} s (${Math.round(rows / loadSeconds).toLocaleString()} rows/s, driver bulk insert)`);

    const token = await services.token();
    const params = { period: '202406' };
    const expr = 'period == ${period}';
    const table: string[] = ['| template | rows out | API p50 ms | API p95 ms | DB baseline p50 ms | API / DB |', '|---|---|---|---|---|---|'];
    for (const templateId of REPORT_TEMPLATE_IDS) {
      const created = await fetch(`${services.costassetUrl}/api/costasset/v1/reportModels/bench-${templateId}?templateId=${templateId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'corelite-token': token },
        body: JSON.stringify({ append: false, type: 'v1', vtags: [], expr }),
      });
      if (!created.ok) throw new Error(`creating the ${templateId} model failed: ${created.status} ${await created.text()}`);
      const api: number[] = [];
      const db: number[] = [];
      let rowsOut = 0;
      // the filter exactly as the API builds it for a System Admin: the expression, tenant last
      const filter = { ...compileExpression(expr, params), tenantId: 'default' };
      for (let run = 0; run < runs; run += 1) {
        const t0 = performance.now();
        const res = await fetch(`${services.costassetUrl}/api/costasset/v1/reportModels/bench-${templateId}/execution?templateParams=${encodeURIComponent(JSON.stringify(params))}`, {
          headers: { 'corelite-token': token },
        });
        const body = (await res.json()) as { rows?: unknown[] };
        api.push(performance.now() - t0);
        if (!res.ok) throw new Error(`executing ${templateId} failed: ${res.status} ${JSON.stringify(body)}`);
        rowsOut = body.rows?.length ?? 0;
        const t1 = performance.now();
        await collection.aggregate(reportPipeline(templateId, filter) as object[]).toArray();
        db.push(performance.now() - t1);
      }
      const a = summarize(api);
      const d = summarize(db);
      table.push(`| ${templateId} | ${rowsOut} | ${a.p50.toFixed(0)} | ${a.p95.toFixed(0)} | ${d.p50.toFixed(0)} | ${(a.p50 / d.p50).toFixed(2)}x |`);
    }
    console.log(`\n${rows.toLocaleString()} line items, filter period == 202406 (${Math.round(rows / PERIODS.length).toLocaleString()} matching), ${runs} runs each:\n`);
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
