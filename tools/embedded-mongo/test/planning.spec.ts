import type { Collection, Db, Document } from 'mongodb';
import { Schema } from 'mongoose';
import { openTestDatabase, type TestDatabase } from './test-database';

/** The stage names of a plan, from the root down (first input only). */
function stages(plan: Document): string[] {
  const out: string[] = [];
  for (let stage: Document | undefined = plan; stage; stage = stage.inputStage as Document | undefined) out.push(String(stage.stage));
  return out;
}

function findStage(plan: Document, name: string): Document | undefined {
  for (let stage: Document | undefined = plan; stage; stage = stage.inputStage as Document | undefined)
    if (stage.stage === name) return stage;
  return undefined;
}

describe('embedded-mongo: query plans, explain and notablescan', () => {
  let db: TestDatabase;
  let native: Db;
  let items: Collection;

  beforeAll(async () => {
    db = await openTestDatabase('planning');
    native = db.conn.db as Db;
    items = native.collection('items');
    await items.createIndexes([{ key: { tenant: 1, period: 1 } }, { key: { tenant: 1, at: -1 } }, { key: { code: 1 }, unique: true }]);
    await items.insertMany(
      Array.from({ length: 300 }, (_, i) => ({
        tenant: `t${i % 3}`,
        period: `2024-${String((i % 12) + 1).padStart(2, '0')}`,
        at: new Date(i * 1000),
        code: `c${i}`,
        n: i,
      })),
    );
  });

  afterAll(async () => {
    await native.admin().command({ setParameter: 1, notablescan: false });
    await db.close();
  });

  describe('explain', () => {
    it('shows an index scan with its bounds and counts keys and documents examined', async () => {
      const explained = await items.find({ tenant: 't1', period: '2024-02' }).explain('executionStats');
      const plan = explained.queryPlanner.winningPlan as Document;
      expect(stages(plan)).toEqual(['FETCH', 'IXSCAN']);
      expect(plan.inputStage).toMatchObject({
        stage: 'IXSCAN',
        indexName: 'tenant_1_period_1',
        keyPattern: { tenant: 1, period: 1 },
        isMultiKey: false,
        isUnique: false,
        direction: 'forward',
        indexBounds: { tenant: ['["t1", "t1"]'], period: ['["2024-02", "2024-02"]'] },
      });
      expect(explained.queryPlanner.namespace).toBe(`${native.databaseName}.items`);
      const stats = explained.executionStats as Document;
      expect(stats).toMatchObject({ executionSuccess: true, nReturned: 25, totalKeysExamined: 25, totalDocsExamined: 25 });
      expect(typeof stats.executionTimeMillis).toBe('number');
      expect(stats.executionStages).toMatchObject({
        stage: 'FETCH',
        nReturned: 25,
        docsExamined: 25,
        inputStage: { stage: 'IXSCAN', keysExamined: 25 },
      });
    });

    it('shows a collection scan when no index serves the filter', async () => {
      const explained = await items.find({ n: { $gte: 290 } }).explain('executionStats');
      expect(explained.queryPlanner.winningPlan).toMatchObject({ stage: 'COLLSCAN', filter: { n: { $gte: 290 } }, direction: 'forward' });
      expect(explained.executionStats).toMatchObject({ nReturned: 10, totalKeysExamined: 0, totalDocsExamined: 300 });
    });

    it('sorts in memory unless the index yields the order (also backwards)', async () => {
      const sorted = await items.find({ tenant: 't2' }).sort({ n: 1 }).limit(5).explain('executionStats');
      expect(stages(sorted.queryPlanner.winningPlan as Document)[0]).toBe('SORT');
      const byIndex = await items.find({ tenant: 't2' }).sort({ at: 1 }).limit(5).explain('executionStats');
      const plan = byIndex.queryPlanner.winningPlan as Document;
      expect(stages(plan)).not.toContain('SORT');
      expect(findStage(plan, 'IXSCAN')).toMatchObject({ indexName: 'tenant_1_at_-1', direction: 'backward' });
      expect(byIndex.executionStats.totalKeysExamined).toBe(5);
      const page = await items.find({ tenant: 't2' }).sort({ at: 1 }).limit(5).toArray();
      expect(page.map((doc) => doc.n)).toEqual([2, 5, 8, 11, 14]);
    });

    it('uses _id bounds for a keyset page', async () => {
      const [first] = await items.find({}).sort({ _id: 1 }).limit(1).toArray();
      const explained = await items
        .find({ _id: { $gt: first._id } })
        .sort({ _id: 1 })
        .limit(10)
        .explain('executionStats');
      expect(findStage(explained.queryPlanner.winningPlan as Document, 'IXSCAN')).toMatchObject({ indexName: '_id_' });
      expect(explained.executionStats.totalDocsExamined).toBe(10);
    });

    it('works through mongoose', async () => {
      const Item = db.conn.model('ExplainedItem', new Schema({ tenant: String, period: String }), 'items');
      const explained = (await Item.find({ tenant: 't0', period: '2024-01' }).explain('executionStats')) as unknown as
        Document | Document[];
      const result = Array.isArray(explained) ? explained[0] : explained;
      expect(findStage(result.queryPlanner.winningPlan as Document, 'IXSCAN')).toMatchObject({ indexName: 'tenant_1_period_1' });
      expect(result.executionStats.nReturned).toBe(25);
    });

    it('explains count, distinct, aggregate, update, delete and findAndModify', async () => {
      const count = await native.command({
        explain: { count: 'items', query: { tenant: 't1', period: '2024-02' } },
        verbosity: 'executionStats',
      });
      expect(count.queryPlanner.winningPlan.stage).toBe('COUNT');
      expect(JSON.stringify(count.queryPlanner.winningPlan)).toContain('tenant_1_period_1');
      const distinct = await native.command({
        explain: { distinct: 'items', key: 'period', query: { tenant: 't1' } },
        verbosity: 'queryPlanner',
      });
      expect(JSON.stringify(distinct.queryPlanner.winningPlan)).toMatch(/tenant_1_(period_1|at_-1)/);
      const aggregate = await items
        .aggregate([{ $match: { tenant: 't0', period: '2024-03' } }, { $group: { _id: null, total: { $sum: '$n' } } }])
        .explain('executionStats');
      const cursorStage = (aggregate.stages as Document[] | undefined)?.[0]?.$cursor ?? aggregate;
      expect(JSON.stringify(cursorStage.queryPlanner.winningPlan)).toContain('tenant_1_period_1');
      const update = await native.command({
        explain: { update: 'items', updates: [{ q: { code: 'c5' }, u: { $set: { x: 1 } } }] },
        verbosity: 'executionStats',
      });
      expect(update.queryPlanner.winningPlan.stage).toBe('UPDATE');
      expect(JSON.stringify(update.queryPlanner.winningPlan)).toContain('code_1');
      expect(await items.countDocuments({ x: 1 })).toBe(0);
      const remove = await native.command({
        explain: { delete: 'items', deletes: [{ q: { tenant: 't0' }, limit: 0 }] },
        verbosity: 'queryPlanner',
      });
      expect(remove.queryPlanner.winningPlan.stage).toBe('DELETE');
      const modify = await native.command({
        explain: { findAndModify: 'items', query: { code: 'c7' }, remove: true },
        verbosity: 'queryPlanner',
      });
      expect(modify.queryPlanner.winningPlan.stage).toBe('DELETE');
      expect(await items.countDocuments()).toBe(300);
    });

    it('follows a hint, and refuses a hint naming no index', async () => {
      const byName = await items.find({ tenant: 't1', period: '2024-02' }).hint('tenant_1_at_-1').explain('queryPlanner');
      expect(findStage(byName.queryPlanner.winningPlan as Document, 'IXSCAN')).toMatchObject({ indexName: 'tenant_1_at_-1' });
      const natural = await items.find({ tenant: 't1' }).hint({ $natural: 1 }).explain('queryPlanner');
      expect(natural.queryPlanner.winningPlan.stage).toBe('COLLSCAN');
      await expect(items.find({ tenant: 't1' }).hint('nope').toArray()).rejects.toMatchObject({
        code: 2,
        message: expect.stringContaining('hint provided does not correspond to an existing index'),
      });
    });
  });

  describe('bulk inserts into non-unique indexes', () => {
    // Such entries are merged into the index in key order in bulk; every read must see them all.
    it('answers like a scan during and after loads larger than one merge, with a cursor open across them', async () => {
      const bulk = native.collection('bulk');
      await bulk.createIndexes([{ key: { group: 1, n: -1 } }, { key: { tag: 1 } }]);
      const row = (i: number) => ({ group: `g${i % 7}`, n: i, tag: i % 2 === 0 ? ['even', `t${i % 5}`] : `t${i % 5}` });
      await bulk.insertMany(Array.from({ length: 100 }, (_, i) => row(i)));
      const open = bulk.find({ group: 'g3' }).sort({ group: 1, n: -1 }).batchSize(5);
      const firstPage: number[] = [];
      for (let i = 0; i < 5; i++) firstPage.push(((await open.next()) as Document).n as number);
      for (let offset = 100; offset < 18_100; offset += 9_000) {
        await bulk.insertMany(
          Array.from({ length: 9_000 }, (_, k) => row(offset + k)),
          { ordered: false },
        );
        expect(await bulk.countDocuments({ group: 'g2', n: { $gte: offset - 50 } })).toBe(
          await bulk.countDocuments({ group: 'g2', n: { $gte: offset - 50 } }, { hint: { $natural: 1 } }),
        );
      }
      const rest = (await open.toArray()).map((doc) => doc.n as number);
      // The cursor continues after its last key: larger n of g3 (inserted meanwhile) are before it in the order.
      expect([...firstPage, ...rest]).toEqual([...firstPage, ...rest].sort((a, b) => b - a));
      expect(rest.every((n) => n < firstPage[4])).toBe(true);
      await bulk.updateMany({ group: 'g4', n: { $lt: 9_000 } }, { $set: { group: 'g5' } });
      await bulk.deleteMany({ tag: 'even', group: 'g1' });
      await bulk.insertMany(Array.from({ length: 500 }, (_, k) => row(50_000 + k)));
      for (const filter of [
        { group: 'g5' },
        { group: 'g4' },
        { tag: 'even' },
        { tag: 't3', group: 'g1' },
        { group: { $in: ['g1', 'g6'] }, n: { $lt: 15_000, $gt: 100 } },
      ]) {
        const planned = await bulk
          .find(filter, { projection: { n: 1 } })
          .sort({ n: 1 })
          .toArray();
        const scanned = await bulk
          .find(filter, { projection: { n: 1 } })
          .sort({ n: 1 })
          .hint({ $natural: 1 })
          .toArray();
        expect(planned.map((doc) => doc.n)).toEqual(scanned.map((doc) => doc.n));
        expect(planned.length).toBeGreaterThan(0);
      }
      const plan = await bulk.find({ tag: 'even' }).explain('executionStats');
      expect(findStage(plan.queryPlanner.winningPlan as Document, 'IXSCAN')).toMatchObject({ indexName: 'tag_1', isMultiKey: true });
      await bulk.drop();
    });
  });

  describe('notablescan', () => {
    afterEach(async () => {
      await native.admin().command({ setParameter: 1, notablescan: false });
    });

    it('is set and read on the admin database only', async () => {
      expect(await native.admin().command({ setParameter: 1, notablescan: true })).toMatchObject({ was: false, ok: 1 });
      expect(await native.admin().command({ getParameter: 1, notablescan: 1 })).toMatchObject({ notablescan: true, ok: 1 });
      await expect(native.command({ setParameter: 1, notablescan: true })).rejects.toMatchObject({ code: 13, codeName: 'Unauthorized' });
    });

    it('refuses queries that need a collection scan with mongod error 291', async () => {
      await native.admin().command({ setParameter: 1, notablescan: true });
      const refused = await items
        .find({ n: 5 })
        .toArray()
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 291, codeName: 'NoQueryExecutionPlans' });
      expect((refused as Error).message).toMatch(
        new RegExp(
          /^error processing query: ns=\S+\.items.*Tree: n \$eq 5\nSort: \{\}\nProj: \{\}\n planner returned error :: /.source +
            /caused by :: No indexed plans available, and running with 'notablescan'$/.source,
          's',
        ),
      );
      await expect(items.countDocuments({ n: 5 })).rejects.toMatchObject({ code: 291 });
      await expect(items.updateOne({ n: 5 }, { $set: { y: 1 } })).rejects.toMatchObject({ code: 291 });
      await expect(items.deleteMany({ n: 5 })).rejects.toMatchObject({ code: 291 });
      await expect(items.find({ tenant: 't1' }).hint({ $natural: 1 }).toArray()).rejects.toThrow(
        /\$natural.*'notablescan'|'notablescan'.*\$natural/,
      );
    });

    it('lets indexed queries and mongod’s exemptions through', async () => {
      await native.admin().command({ setParameter: 1, notablescan: true });
      expect(await items.countDocuments({ tenant: 't1', period: '2024-02' })).toBe(25);
      expect(await items.find({ tenant: 't1', n: 4 }).toArray()).toHaveLength(1);
      expect(await items.find({}).toArray()).toHaveLength(300); // an empty filter is exempt
      expect(await items.find({}).sort({ _id: -1 }).limit(1).toArray()).toHaveLength(1);
      expect(await native.collection('missing').find({ a: 1 }).toArray()).toEqual([]);
    });
  });
});
