import { Binary, Decimal128, Long, ObjectId } from 'bson';
import type { ModifyResult } from 'mongodb';
import { Schema, Types, type Model } from 'mongoose';
import { openTestDatabase, type TestDatabase } from './test-database';

interface Item {
  name: string;
  qty: number;
  tags: string[];
  lines: Array<{ sku: string; qty: number }>;
}

describe('embedded-mongo: CRUD through mongoose', () => {
  let db: TestDatabase;
  let Items: Model<Item>;

  beforeAll(async () => {
    db = await openTestDatabase('crud');
    Items = db.conn.model<Item>(
      'Item',
      new Schema<Item>({
        name: { type: String, required: true },
        qty: { type: Number, default: 0 },
        tags: [String],
        lines: [{ _id: false, sku: String, qty: Number }],
      }),
    );
    await Items.init();
  });

  afterAll(async () => {
    await db.close();
  });

  beforeEach(async () => {
    await Items.deleteMany({});
  });

  it('creates, reads (lean, findById), updates and deletes documents', async () => {
    const created = await Items.create({ name: 'bolt', qty: 3, tags: ['metal'] });
    const byId = await Items.findById(created._id).lean();
    expect(byId).toMatchObject({ name: 'bolt', qty: 3, tags: ['metal'] });
    expect(byId?._id).toBeInstanceOf(Types.ObjectId);

    const updated = await Items.updateOne({ _id: created._id }, { $inc: { qty: 2 }, $push: { tags: 'small' } });
    expect(updated).toMatchObject({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
    const unchanged = await Items.updateOne({ _id: created._id }, { $set: { qty: 5 } });
    expect(unchanged).toMatchObject({ matchedCount: 1, modifiedCount: 0 });
    expect(await Items.findOne({ name: 'bolt' }).lean()).toMatchObject({ qty: 5, tags: ['metal', 'small'] });

    await Items.insertMany([
      { name: 'nut', qty: 1 },
      { name: 'washer', qty: 9 },
    ]);
    const sorted = await Items.find({ qty: { $gte: 1 } }, { name: 1, _id: 0 })
      .sort({ qty: -1 })
      .skip(1)
      .limit(2)
      .lean();
    expect(sorted).toEqual([{ name: 'bolt' }, { name: 'nut' }]);

    const multi = await Items.updateMany({ qty: { $lt: 6 } }, { $set: { tags: ['cheap'] } });
    expect(multi).toMatchObject({ matchedCount: 2, modifiedCount: 2 });

    const deleted = await Items.deleteMany({ tags: 'cheap' });
    expect(deleted.deletedCount).toBe(2);
    expect(await Items.deleteOne({ name: 'missing' })).toMatchObject({ deletedCount: 0 });
    expect(await Items.find().lean()).toEqual([expect.objectContaining({ name: 'washer' })]);
  });

  it('replaces a document and keeps its _id', async () => {
    const created = await Items.create({ name: 'old', qty: 1 });
    await Items.replaceOne({ _id: created._id }, { name: 'new', qty: 7 });
    expect(await Items.findById(created._id).lean()).toMatchObject({ _id: created._id, name: 'new', qty: 7 });
  });

  it('upserts a replacement document', async () => {
    const result = await Items.collection.replaceOne({ name: 'absent' }, { name: 'replacement', qty: 4 }, { upsert: true });
    expect(result).toMatchObject({ matchedCount: 0, upsertedCount: 1 });
    expect(await Items.findById(result.upsertedId).lean()).toEqual({ _id: result.upsertedId, name: 'replacement', qty: 4 });
  });

  it('refuses to change _id with an update', async () => {
    const created = await Items.create({ name: 'fixed' });
    await expect(Items.collection.updateOne({ _id: created._id }, { $set: { _id: new ObjectId() } })).rejects.toMatchObject({
      code: 66,
      errmsg: "Performing an update on the path '_id' would modify the immutable field '_id'",
    });
  });

  it('updates the matched array element with the positional $ operator', async () => {
    const created = await Items.create({
      name: 'kit',
      lines: [
        { sku: 'a', qty: 1 },
        { sku: 'b', qty: 1 },
      ],
    });
    await Items.updateOne({ _id: created._id, 'lines.sku': 'b' }, { $set: { 'lines.$.qty': 5 } });
    expect((await Items.findById(created._id).lean())?.lines).toEqual([
      { sku: 'a', qty: 1 },
      { sku: 'b', qty: 5 },
    ]);
  });

  it('updates with arrayFilters', async () => {
    const created = await Items.create({
      name: 'kit',
      lines: [
        { sku: 'a', qty: 1 },
        { sku: 'b', qty: 2 },
      ],
    });
    await Items.collection.updateOne(
      { _id: created._id },
      { $inc: { 'lines.$[line].qty': 10 } },
      { arrayFilters: [{ 'line.qty': { $gte: 2 } }] },
    );
    expect((await Items.findById(created._id).lean())?.lines).toEqual([
      { sku: 'a', qty: 1 },
      { sku: 'b', qty: 12 },
    ]);
  });

  it('upserts with findOneAndUpdate, $setOnInsert and new: true', async () => {
    const first = (await Items.findOneAndUpdate(
      { name: 'gear' },
      { $setOnInsert: { tags: ['fresh'] }, $inc: { qty: 1 } },
      { upsert: true, new: true, includeResultMetadata: true },
    ).lean()) as unknown as ModifyResult<Item>;
    expect(first.lastErrorObject).toMatchObject({ n: 1, updatedExisting: false });
    expect(first.lastErrorObject?.upserted).toBeInstanceOf(Types.ObjectId);
    expect(first.value).toMatchObject({ name: 'gear', qty: 1, tags: ['fresh'] });

    const second = (await Items.findOneAndUpdate(
      { name: 'gear' },
      { $setOnInsert: { tags: ['ignored'] }, $inc: { qty: 1 } },
      { upsert: true, new: true, includeResultMetadata: true },
    ).lean()) as unknown as ModifyResult<Item>;
    expect(second.lastErrorObject).toMatchObject({ n: 1, updatedExisting: true });
    expect(second.value).toMatchObject({ name: 'gear', qty: 2, tags: ['fresh'] });

    const before = await Items.findOneAndUpdate({ name: 'gear' }, { $set: { qty: 10 } }, { new: false }).lean();
    expect(before?.qty).toBe(2);
    const none = await Items.findOneAndUpdate({ name: 'nothing' }, { $set: { qty: 1 } }).lean();
    expect(none).toBeNull();
  });

  it('reports upserted ids from updateOne with upsert', async () => {
    const result = await Items.updateOne({ name: 'spring' }, { $set: { qty: 4 } }, { upsert: true });
    expect(result).toMatchObject({ matchedCount: 0, modifiedCount: 0, upsertedCount: 1 });
    expect(await Items.findById(result.upsertedId).lean()).toMatchObject({ name: 'spring', qty: 4 });
  });

  it('finds and deletes with findOneAndDelete honouring sort and projection', async () => {
    await Items.insertMany([
      { name: 'a', qty: 1 },
      { name: 'b', qty: 2 },
    ]);
    const removed = await Items.findOneAndDelete({}, { sort: { qty: -1 }, projection: { name: 1, _id: 0 } }).lean();
    expect(removed).toEqual({ name: 'b' });
    expect(await Items.countDocuments()).toBe(1);
  });

  it('counts documents and estimates counts', async () => {
    await Items.insertMany([
      { name: 'a', qty: 1 },
      { name: 'b', qty: 2 },
      { name: 'c', qty: 3 },
    ]);
    expect(await Items.countDocuments({ qty: { $gt: 1 } })).toBe(2);
    expect(await Items.countDocuments({}, { skip: 1, limit: 1 })).toBe(1);
    expect(await Items.estimatedDocumentCount()).toBe(3);
  });

  it('returns distinct values, flattening arrays', async () => {
    await Items.insertMany([
      { name: 'a', tags: ['x', 'y'] },
      { name: 'b', tags: ['y', 'z'] },
      { name: 'c', tags: [] },
    ]);
    expect(await Items.distinct('tags')).toEqual(['x', 'y', 'z']);
    expect(await Items.distinct('name', { tags: 'y' })).toEqual(['a', 'b']);
  });

  it('round-trips BSON types exactly', async () => {
    const raw = db.conn.collection('bsontypes');
    const ref = new ObjectId();
    const when = new Date('2024-02-29T12:34:56.789Z');
    const doc = {
      ref,
      when,
      price: Decimal128.fromString('12345678901234567890.123456789'),
      big: Long.fromString('9007199254740993'),
      blob: new Binary(Buffer.from([0, 1, 2, 255]), 0),
      uuid: new Binary(Buffer.alloc(16, 7), 4),
      nested: { list: [1, 'two', { three: 3 }] },
      nothing: null,
    };
    const { insertedId } = await raw.insertOne(doc);
    const found = await raw.findOne({ _id: insertedId }, { promoteLongs: false, promoteBuffers: false });
    expect(found?.ref).toEqual(ref);
    expect(found?.when).toEqual(when);
    expect(found?.price).toBeInstanceOf(Decimal128);
    expect(found?.price.toString()).toBe('12345678901234567890.123456789');
    expect(found?.big).toBeInstanceOf(Long);
    expect(found?.big.toString()).toBe('9007199254740993');
    expect(Buffer.from(found?.blob.buffer)).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(found?.uuid.sub_type).toBe(4);
    expect(found?.nested).toEqual({ list: [1, 'two', { three: 3 }] });
    expect(found?.nothing).toBeNull();
    expect(await raw.countDocuments({ ref })).toBe(1);
    expect(await raw.countDocuments({ when })).toBe(1);
    expect(await raw.countDocuments({ price: Decimal128.fromString('12345678901234567890.123456789') })).toBe(1);
  });

  it('round-trips Decimal128 and Date through a mongoose schema', async () => {
    const Prices = db.conn.model('Price', new Schema({ amount: Schema.Types.Decimal128, at: Date, owner: Schema.Types.ObjectId }));
    const owner = new Types.ObjectId();
    const at = new Date(1_700_000_000_123);
    const created = await Prices.create({ amount: '0.10', at, owner });
    const found = await Prices.findById(created._id).lean();
    expect(found?.amount?.toString()).toBe('0.10');
    expect(found?.at).toEqual(at);
    expect(found?.owner).toEqual(owner);
  });

  it('increments and sums Decimal128 values exactly', async () => {
    const raw = db.conn.collection('money');
    await raw.insertMany([{ amount: Decimal128.fromString('0.10') }, { amount: Decimal128.fromString('0.20') }]);
    await raw.updateMany({}, { $inc: { amount: Decimal128.fromString('0.05') } });
    const amounts = (await raw.find().toArray()).map((doc) => doc.amount);
    expect(amounts.every((value) => value instanceof Decimal128)).toBe(true);
    expect(amounts.map(String)).toEqual(['0.15', '0.25']);
    const [totals] = await raw.aggregate([{ $group: { _id: null, sum: { $sum: '$amount' }, avg: { $avg: '$amount' } } }]).toArray();
    expect(totals.sum).toBeInstanceOf(Decimal128);
    expect(totals.sum.toString()).toBe('0.40');
    expect(Number(totals.avg.toString())).toBe(0.2);
  });

  it('stores copies: aggregation stages do not change stored documents', async () => {
    const created = await Items.create({ name: 'copy', lines: [{ sku: 'a', qty: 1 }] });
    await Items.aggregate([{ $addFields: { 'lines.qty': 99, extra: 1 } }]);
    const stored = await Items.findById(created._id).lean();
    expect(stored?.lines).toEqual([{ sku: 'a', qty: 1 }]);
    expect(stored).not.toHaveProperty('extra');
  });
});
