import { randomUUID } from 'node:crypto';
import mongoose, { Connection, Model, Schema } from 'mongoose';
import { TenantRepository, tenantScopedPlugin } from '@lib/persistence';

interface Item {
  tenantId: string;
  name: string;
  n: number;
}

class ItemRepository extends TenantRepository<Item> {
  constructor(model: Model<Item>) {
    super(model);
  }
}

/** The base repository against the stack's MongoDB (or a real mongod via MONGODB_URI). */
describe('TenantRepository', () => {
  let connection: Connection;
  let items: ItemRepository;

  beforeAll(async () => {
    const url = new URL(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:37017/x');
    url.pathname = `/repo_${randomUUID().slice(0, 8)}`;
    connection = await mongoose.createConnection(url.toString()).asPromise();
    const schema = new Schema<Item>({ name: String, n: Number });
    schema.plugin(tenantScopedPlugin);
    schema.index({ tenantId: 1, name: 1 }, { unique: true });
    const model = connection.model<Item>('Item', schema);
    await model.init();
    items = new ItemRepository(model);
  });
  afterAll(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  it('scopes every read, write and aggregate to the tenant, whatever the filter says', async () => {
    const a = await items.create('A', { name: 'x', n: 1 });
    await items.create('B', { name: 'x', n: 2 });
    expect(await items.find('A')).toHaveLength(1);
    expect(await items.find('A', { tenantId: 'B' } as never)).toEqual([expect.objectContaining({ tenantId: 'A' })]);
    expect(await items.findById('B', String(a._id))).toBeNull();
    expect(await items.findById('A', 'not-an-id')).toBeNull();
    expect(await items.updateOne('B', { _id: a._id }, { $set: { n: 99 } })).toBe(0);
    await items.updateOne('A', { name: 'x' }, { $set: { n: 5, tenantId: 'B' } as never });
    expect(await items.findOne('A', { name: 'x' })).toMatchObject({ tenantId: 'A', n: 5 });
    const totals = await items.aggregate<{ total: number }>('A', [{ $group: { _id: null, total: { $sum: '$n' } } }]);
    expect(totals).toEqual([{ _id: null, total: 5 }]);
    const widened = await items.aggregate<{ total: number }>('A', [
      { $match: { tenantId: 'B' } },
      { $group: { _id: '$tenantId', total: { $sum: '$n' } } },
    ]);
    expect(widened).toEqual([{ _id: 'A', total: 5 }]);
    expect(await items.deleteMany('B', { name: 'x' })).toBe(1);
    expect(await items.count('A')).toBe(1);
  });

  it('bulk-loads on the driver with the tenant stamped, and pages by cursor', async () => {
    const docs = Array.from({ length: 25 }, (_, i) => ({ name: `bulk-${i}`, n: i }));
    expect(await items.insertBulk('C', docs)).toBe(25);
    await items.bulkWrite('C', [
      { updateMany: { filter: { n: { $lt: 5 } }, update: { $set: { n: -1 } } } },
      { deleteOne: { filter: { name: 'bulk-24' } } },
    ]);
    expect(await items.count('C', { n: -1 })).toBe(5);
    expect(await items.count('A', { n: -1 })).toBe(0);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await items.page('C', {}, 10, cursor);
      seen.push(...page.items.map((item) => item.name));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(24);
    expect(new Set(seen).size).toBe(24);
    // a corrupted cursor is refused, never taken for the first page again
    for (const corrupted of ['not-a-cursor', `${String(cursor ?? 'x').padEnd(24, '0')}zz`, '']) {
      await expect(items.page('C', {}, 10, corrupted)).rejects.toMatchObject({ code: 'INVALID_CURSOR', status: 400 });
    }
  });

  it('reports a duplicate within a tenant as 11000, and allows it across tenants', async () => {
    await items.create('D', { name: 'dup', n: 1 });
    await items.create('E', { name: 'dup', n: 1 });
    await expect(items.create('D', { name: 'dup', n: 2 })).rejects.toMatchObject({ code: 11000 });
  });
});
