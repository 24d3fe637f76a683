import { Decimal128 } from 'bson';
import { Schema, Types, type Model } from 'mongoose';
import { openTestDatabase, testServerOnly, type TestDatabase } from './test-database';

interface Order {
  customer: Types.ObjectId;
  status: string;
  total: number;
  items: string[];
}

describe('embedded-mongo: aggregation through mongoose', () => {
  let db: TestDatabase;
  let Orders: Model<Order>;
  let Customers: Model<{ name: string }>;
  const ada = new Types.ObjectId();
  const bob = new Types.ObjectId();

  beforeAll(async () => {
    db = await openTestDatabase('aggregate');
    Customers = db.conn.model<{ name: string }>('Customer', new Schema<{ name: string }>({ name: String }));
    Orders = db.conn.model<Order>(
      'Order',
      new Schema<Order>({ customer: Schema.Types.ObjectId, status: String, total: Number, items: [String] }),
    );
    await Customers.create([
      { _id: ada, name: 'Ada' },
      { _id: bob, name: 'Bob' },
    ]);
    await Orders.create([
      { customer: ada, status: 'open', total: 10, items: ['pen', 'ink'] },
      { customer: ada, status: 'paid', total: 30, items: ['pen'] },
      { customer: bob, status: 'paid', total: 5, items: ['cap'] },
      { customer: bob, status: 'open', total: 7, items: [] },
    ]);
  });

  afterAll(async () => {
    await db.close();
  });

  it('groups and sorts', async () => {
    const totals = await Orders.aggregate([
      { $match: { total: { $gte: 5 } } },
      { $group: { _id: '$status', sum: { $sum: '$total' }, count: { $sum: 1 } } },
      { $sort: { sum: -1 } },
    ]);
    expect(totals).toEqual([
      { _id: 'paid', sum: 35, count: 2 },
      { _id: 'open', sum: 17, count: 2 },
    ]);
  });

  it('runs $facet with $count, $sortByCount, $unwind and $project', async () => {
    const [result] = await Orders.aggregate([
      {
        $facet: {
          total: [{ $count: 'n' }],
          byStatus: [{ $sortByCount: '$status' }, { $sort: { _id: 1 } }],
          items: [{ $unwind: '$items' }, { $group: { _id: '$items' } }, { $sort: { _id: 1 } }],
          top: [{ $sort: { total: -1 } }, { $limit: 1 }, { $project: { _id: 0, total: 1 } }],
        },
      },
    ]);
    expect(result).toEqual({
      total: [{ n: 4 }],
      byStatus: [
        { _id: 'open', count: 2 },
        { _id: 'paid', count: 2 },
      ],
      items: [{ _id: 'cap' }, { _id: 'ink' }, { _id: 'pen' }],
      top: [{ total: 30 }],
    });
  });

  it('joins with $lookup in the same database', async () => {
    const rows = await Orders.aggregate([
      { $match: { status: 'paid' } },
      { $lookup: { from: 'customers', localField: 'customer', foreignField: '_id', as: 'who' } },
      { $unwind: '$who' },
      { $replaceRoot: { newRoot: { name: '$who.name', total: '$total' } } },
      { $sort: { name: 1 } },
    ]);
    expect(rows).toEqual([
      { name: 'Ada', total: 30 },
      { name: 'Bob', total: 5 },
    ]);
  });

  it('supports $addFields, $set, $unset and $skip', async () => {
    const rows = await Orders.aggregate([
      { $sort: { total: 1 } },
      { $skip: 1 },
      { $addFields: { double: { $multiply: ['$total', 2] } } },
      { $set: { flag: true } },
      { $unset: ['items', 'customer', '_id', '__v'] },
    ]);
    expect(rows).toEqual([
      { status: 'open', total: 7, double: 14, flag: true },
      { status: 'open', total: 10, double: 20, flag: true },
      { status: 'paid', total: 30, double: 60, flag: true },
    ]);
  });

  it('pages an aggregation cursor with getMore', async () => {
    const cursor = Orders.aggregate([{ $sort: { total: 1 } }]).cursor({ batchSize: 1 });
    const totals: number[] = [];
    for await (const doc of cursor) totals.push(doc.total);
    expect(totals).toEqual([5, 7, 10, 30]);
  });

  it('honours a collation in $match', async () => {
    const rows = await Orders.aggregate([{ $match: { status: 'PAID' } }, { $count: 'n' }]).collation({
      locale: 'en',
      strength: 2,
    });
    expect(rows).toEqual([{ n: 2 }]);
  });

  it('reports an unknown stage like mongod (40324)', async () => {
    await expect(Orders.aggregate([{ $bogus: {} } as never])).rejects.toMatchObject({ code: 40324 });
  });

  testServerOnly('refuses $out and $merge with an error', async () => {
    await expect(Orders.aggregate([{ $match: {} }, { $out: 'copy' }])).rejects.toMatchObject({
      code: 238,
      message: expect.stringContaining('$out'),
    });
    await expect(Orders.aggregate([{ $merge: { into: 'copy' } }])).rejects.toMatchObject({ code: 238 });
    const names = (await db.conn.db!.listCollections().toArray()).map((entry) => entry.name);
    expect(names).not.toContain('copy');
  });

  testServerOnly('refuses range comparisons on Decimal128 instead of comparing strings', async () => {
    await expect(Orders.collection.find({ total: { $gt: Decimal128.fromString('9') } }).toArray()).rejects.toMatchObject({
      code: 238,
    });
  });

  it('answers a $group right after the query as over whole documents, whatever fields its expressions read', async () => {
    const groups: Array<Record<string, unknown>> = [
      { _id: '$status', total: { $sum: '$total' }, first: { $first: { $arrayElemAt: ['$items', 0] } } },
      { _id: { customer: '$customer' }, items: { $push: { $filter: { input: '$items', cond: { $ne: ['$$this', 'ink'] } } } } },
      { _id: null, docs: { $push: '$$ROOT' } },
      { _id: null, statuses: { $addToSet: { $getField: 'status' } } },
      { _id: { $literal: '$status' }, n: { $sum: 1 }, most: { $max: '$$CURRENT.total' } },
    ];
    // sorted first (by a field the stage does not read): `$first` and `$last` see that order
    groups.push({ _id: '$customer', first: { $first: '$items' }, last: { $last: '$items' } });
    for (const group of groups)
      for (const sorted of [true, false]) {
        // unsorted, the query hands each document to the stage as it finds it; a stage after it changes the groups
        const query = [{ $match: { total: { $gte: 5 } } }, ...(sorted ? [{ $sort: { total: -1 } }] : [])];
        const after = [{ $addFields: { seen: true } }, { $sort: { _id: 1 } }];
        // `$skip: 0` in between: the stage no longer follows the query, which then decodes whole documents
        const whole = await Orders.aggregate([...query, { $skip: 0 }, { $group: group }, ...after] as never[]);
        expect(await Orders.aggregate([...query, { $group: group }, ...after] as never[])).toEqual(whole);
      }
  });

  it('filters arrays by their elements’ fields in a $group as mingo does in a $project', async () => {
    const Tagged = db.conn.model('Tagged', new Schema({ tags: Schema.Types.Mixed }));
    const tag = (group: string, key: string, value: string) => ({ group, key, value });
    await Tagged.insertMany(
      [
        // (no array in an array: mingo compares `$$t.group` of one, ['a'], equal to 'a'; mongod does not)
        { tags: [tag('a', 'k', '1'), tag('b', 'k', '2'), 'k', { group: 'a' }, tag('a', 'j', '4')] },
        { tags: [tag('a', 'k', '1'), { group: 'a', key: 5 }] },
        { tags: null },
        {},
        { tags: [] },
      ],
      { lean: true },
    );
    const conditions = [
      { $and: [{ $eq: ['$$t.group', 'a'] }, { $eq: ['$$t.key', 'k'] }] },
      { $or: [{ $and: [{ $eq: ['a', '$$t.group'] }, { $eq: ['$$t.key', { $literal: 'j' }] }] }, { $eq: ['$$t.group', 'b'] }] },
      { $or: [] },
    ];
    for (const cond of conditions) {
      const filter = { $filter: { input: '$tags', as: 't', cond } };
      const inGroup = await Tagged.aggregate([{ $group: { _id: filter, n: { $sum: 1 } } }, { $sort: { _id: 1 } }]);
      const inProject = await Tagged.aggregate([
        { $project: { f: filter } },
        { $group: { _id: '$f', n: { $sum: 1 } } },
        { $sort: { _id: 1 } },
      ]);
      expect(inGroup).toEqual(inProject);
    }
  });

  it('reads nested field paths in a $group as mingo does in a $project, arrays and scalars on the way included', async () => {
    const Nested = db.conn.model('Nested', new Schema({ a: Schema.Types.Mixed }));
    await Nested.insertMany(
      [
        { a: { b: { c: 1 } } },
        { a: { b: { c: 1, d: 2 } } },
        { a: { b: [{ c: 2 }, { c: 3 }, { d: 4 }] } },
        { a: [{ b: { c: 5 } }, { b: 6 }] },
        { a: { b: null } },
        { a: { b: 'text' } },
        { a: null },
        { a: 7 },
        { a: {} },
        {},
      ],
      { lean: true },
    );
    const id = { c: '$a.b.c', b: '$a.b', d: '$a.b.d' };
    const inGroup = await Nested.aggregate([{ $group: { _id: id, n: { $sum: 1 } } }, { $sort: { _id: 1 } }]);
    const inProject = await Nested.aggregate([
      { $project: id },
      { $group: { _id: { c: '$c', b: '$b', d: '$d' }, n: { $sum: 1 } } },
      { $sort: { _id: 1 } },
    ]);
    expect(inGroup).toEqual(inProject);
    expect(inGroup.length).toBeGreaterThan(6);
  });

  it('formats days in a $group as mingo does in a $project, odd dates and values included', async () => {
    const Dated = db.conn.model('Dated', new Schema({ at: Schema.Types.Mixed }));
    await Dated.collection.insertMany([
      { at: new Date('2024-03-01T23:59:59.999Z') },
      { at: new Date('2024-03-01T00:00:00.000Z') },
      { at: new Date('1969-12-31T12:00:00.000Z') },
      { at: new Date('0001-01-01T00:00:00.000Z') },
      { at: new Date(Date.UTC(10000, 0, 1)) },
      { at: null },
      {},
    ]);
    const day = { $dateToString: { format: '%Y-%m-%d', date: '$at' } };
    const inGroup = await Dated.aggregate([{ $group: { _id: day, n: { $sum: 1 } } }, { $sort: { _id: 1 } }]);
    const inProject = await Dated.aggregate([{ $project: { day } }, { $group: { _id: '$day', n: { $sum: 1 } } }, { $sort: { _id: 1 } }]);
    expect(inGroup).toEqual(inProject);
    expect(inGroup.map((group) => group._id)).toEqual(expect.arrayContaining(['2024-03-01', '1969-12-31', '0001-01-01']));
  });

  it('runs per-document stages over every document exactly once, however many slices they take', async () => {
    // slow enough per document that the store resizes its slices as it goes
    const Many = db.conn.model<{ n: number; pad: string }>('Many', new Schema({ n: Number, pad: String }));
    const docs = Array.from({ length: 20_000 }, (_, n) => ({ n, pad: 'x'.repeat(200) }));
    await Many.insertMany(docs, { lean: true });
    const out = await Many.aggregate<{ n: number; twice: number }>([
      { $project: { _id: 0, n: 1, twice: { $multiply: ['$n', 2] }, size: { $strLenCP: '$pad' } } },
      { $match: { size: 200 } },
    ]);
    expect(out).toHaveLength(docs.length);
    expect(new Set(out.map((row) => row.n)).size).toBe(docs.length);
    expect(out.every((row) => row.twice === row.n * 2)).toBe(true);
  }, 60_000);
});
