import { openTestDatabase, type TestDatabase } from '../../tools/embedded-mongo/test/test-database';
import type { AllocationModels } from '../../apps/costasset/src/allocation/allocation-models';
import { RollupWiring, rollupStackOn } from './rollup-wiring';

/** The line items, every rollup collection, the rollups service and the planner over one test database (specs named `*.db.spec.ts`). */
export interface RollupStack extends RollupWiring {
  db: TestDatabase;
}

/** Opens a test database (the embedded store, or MONGODB_URI) with the rollup stack wired as the app wires it. */
export async function openRollupStack(prefix: string, allocation: AllocationModels): Promise<RollupStack> {
  const db = await openTestDatabase(prefix);
  return { db, ...(await rollupStackOn(db.conn, allocation)) };
}

/** Rows as comparable text, sorted: no `_id`, fields in name order, numbers to 1e-9 (sums of doubles in another order). */
export function comparableRows(rows: readonly Record<string, unknown>[]): string[] {
  return rows
    .map(({ _id, ...row }) => {
      for (const [field, value] of Object.entries(row)) if (typeof value === 'number') row[field] = Math.round(value * 1e9) / 1e9;
      return JSON.stringify(Object.entries(row).sort(([a], [b]) => a.localeCompare(b)));
    })
    .sort();
}
