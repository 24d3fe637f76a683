/**
 * `npm run bench:money -- --rows 1000000`
 * How to store money: binary doubles or Decimal128? Takes the BilledCost column of N FOCUS rows
 * from tools/focus (micro-costs, credits, 10+ decimals), sums it exactly (BigInt at 1e-20) as the
 * reference, then measures for each representation, in the same run and the same database:
 * the bulk insert time, the `$group`/`$sum` time, and the reconciliation error of the database's
 * sum against the exact one (plus the error of a naive and a compensated sum in JavaScript).
 */
import { Decimal128, MongoClient } from 'mongodb';
import { stackUp } from '../tools/stack';
import { focusRow, scaled, unscaled } from '../tools/focus/focus-rows';
import { numberArg } from './support/stats';

const BATCH = 5000;

/** Neumaier's compensated sum: what mongod's double-double `$sum` achieves. */
function compensatedSum(values: number[]): number {
  let sum = 0;
  let compensation = 0;
  for (const value of values) {
    const next = sum + value;
    compensation += Math.abs(sum) >= Math.abs(value) ? sum - next + value : value - next + sum;
    sum = next;
  }
  return sum + compensation;
}

const errorOf = (value: number | string, exact: bigint) => Math.abs(Number(unscaled(scaled(String(value)) - exact)));

async function measure(uri: string, name: string, docs: (index: number) => Record<string, unknown>, rows: number) {
  const client = await MongoClient.connect(uri);
  try {
    const collection = client.db().collection(name);
    await collection.drop().catch(() => undefined);
    const insertStarted = performance.now();
    for (let start = 0; start < rows; start += BATCH) {
      const batch = [];
      for (let index = start; index < Math.min(rows, start + BATCH); index++) batch.push(docs(index));
      await collection.insertMany(batch, { ordered: false });
    }
    const insertSeconds = (performance.now() - insertStarted) / 1000;
    const sumStarted = performance.now();
    const [result] = await collection
      .aggregate<{ total: number | Decimal128 }>([{ $group: { _id: null, total: { $sum: '$billedCost' } } }])
      .toArray();
    const sumSeconds = (performance.now() - sumStarted) / 1000;
    await collection.drop();
    return { insertSeconds, sumSeconds, total: String(result.total) };
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const rows = numberArg('rows', 1_000_000);
  const options = { version: '1.2' as const, providers: ['aws', 'azure', 'oci', 'gcp'], periods: ['202410'], rows };
  const texts: string[] = [];
  let exact = 0n;
  for (let index = 0; index < rows; index++) {
    const text = focusRow(index, options).BilledCost as string;
    texts.push(text);
    exact += scaled(text);
  }
  const doubles = texts.map(Number);
  const naive = doubles.reduce((sum, value) => sum + value, 0);
  console.log(`${rows.toLocaleString()} BilledCost values; exact sum ${unscaled(exact)}`);
  console.log(
    `JavaScript, doubles: naive sum error ${errorOf(naive, exact).toExponential(2)}, ` +
      `compensated sum error ${errorOf(compensatedSum(doubles), exact).toExponential(2)}`,
  );

  const stack = await stackUp({ profile: process.env.STACK_PROFILE ?? 'dev', log: () => undefined });
  const url = new URL(process.env.MONGODB_URI ?? stack.MONGODB_URI);
  url.pathname = `/bench_money_${Date.now()}`;
  const uri = url.toString();
  const asDouble = await measure(uri, 'doubles', (index) => ({ billedCost: doubles[index], period: '202410' }), rows);
  const asDecimal = await measure(
    uri,
    'decimals',
    (index) => ({ billedCost: Decimal128.fromString(texts[index]), period: '202410' }),
    rows,
  );
  console.log('\n| representation | insert s | rows/s | $sum s | database sum | error vs exact |');
  console.log('|---|---|---|---|---|---|');
  for (const [label, m] of [
    ['double', asDouble],
    ['Decimal128', asDecimal],
  ] as const) {
    console.log(
      `| ${label} | ${m.insertSeconds.toFixed(1)} | ${Math.round(rows / m.insertSeconds).toLocaleString()} ` +
        `| ${m.sumSeconds.toFixed(2)} | ${m.total} | ${errorOf(m.total, exact).toExponential(2)} |`,
    );
  }
}

main().catch((error: Error) => {
  console.error(`bench:money: ${error.message}`);
  process.exit(1);
});
