import { Schema, type Model } from 'mongoose';
import { openTestDatabase, type TestDatabase } from './test-database';

describe('embedded-mongo: indexes and collation through mongoose', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase('indexes');
  });

  afterAll(async () => {
    await db.close();
  });

  describe('unique index', () => {
    let Users: Model<{ email: string; name?: string }>;

    beforeAll(async () => {
      Users = db.conn.model<{ email: string; name?: string }>(
        'User',
        new Schema<{ email: string; name?: string }>({ email: { type: String, unique: true }, name: String }),
      );
      await Users.init();
    });

    beforeEach(async () => {
      await Users.deleteMany({});
    });

    it('rejects a duplicate insert with 11000, keyPattern and keyValue', async () => {
      await Users.create({ email: 'a@example.com' });
      const error = await Users.create({ email: 'a@example.com' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 11000, keyPattern: { email: 1 }, keyValue: { email: 'a@example.com' } });
      expect((error as Error).message).toContain(
        `E11000 duplicate key error collection: ${db.conn.name}.users index: email_1 dup key: { email: "a@example.com" }`,
      );
    });

    it('rejects a duplicate produced by an update or an upsert', async () => {
      await Users.create([{ email: 'a@example.com' }, { email: 'b@example.com' }]);
      await expect(Users.updateOne({ email: 'b@example.com' }, { $set: { email: 'a@example.com' } })).rejects.toMatchObject({
        code: 11000,
        keyPattern: { email: 1 },
        keyValue: { email: 'a@example.com' },
      });
      await expect(Users.updateOne({ name: 'nobody' }, { $set: { email: 'a@example.com' } }, { upsert: true })).rejects.toMatchObject({
        code: 11000,
        keyValue: { email: 'a@example.com' },
      });
      await expect(Users.findOneAndUpdate({ email: 'b@example.com' }, { $set: { email: 'a@example.com' } })).rejects.toMatchObject({
        code: 11000,
        keyPattern: { email: 1 },
      });
      expect(await Users.countDocuments()).toBe(2);
    });

    it('lets a document keep its own unique value on update', async () => {
      await Users.create({ email: 'a@example.com', name: 'A' });
      const result = await Users.updateOne({ email: 'a@example.com' }, { $set: { email: 'a@example.com', name: 'B' } });
      expect(result.modifiedCount).toBe(1);
    });

    it('rejects a duplicate _id', async () => {
      const created = await Users.create({ email: 'x@example.com' });
      await expect(Users.collection.insertOne({ _id: created._id, email: 'y@example.com' })).rejects.toMatchObject({
        code: 11000,
        keyPattern: { _id: 1 },
        keyValue: { _id: created._id },
      });
    });

    it('treats a missing field as null', async () => {
      await Users.create({ name: 'no email' });
      await expect(Users.create({ name: 'no email either' })).rejects.toMatchObject({ code: 11000, keyValue: { email: null } });
    });
  });

  it('enforces a case-insensitive unique index (collation strength 2)', async () => {
    const schema = new Schema({ code: String });
    schema.index({ code: 1 }, { unique: true, collation: { locale: 'en', strength: 2 } });
    const Codes = db.conn.model('Code', schema);
    await Codes.init();
    await Codes.create({ code: 'Alpha' });
    await expect(Codes.create({ code: 'ALPHA' })).rejects.toMatchObject({ code: 11000, keyPattern: { code: 1 } });
    await Codes.create({ code: 'Älpha' });
    const [index] = (await Codes.collection.listIndexes().toArray()).filter((spec) => spec.name === 'code_1');
    expect(index).toMatchObject({ unique: true, collation: { locale: 'en', strength: 2 } });
  });

  it('enforces an accent-insensitive unique index (collation strength 1)', async () => {
    const schema = new Schema({ city: String });
    schema.index({ city: 1 }, { unique: true, collation: { locale: 'fr', strength: 1 } });
    const Cities = db.conn.model('City', schema);
    await Cities.init();
    await Cities.create({ city: 'Montréal' });
    await expect(Cities.create({ city: 'MONTREAL' })).rejects.toMatchObject({ code: 11000 });
    await Cities.create({ city: 'Quebec' });
  });

  it('enforces a compound unique index', async () => {
    const schema = new Schema({ tenant: String, slug: String });
    schema.index({ tenant: 1, slug: 1 }, { unique: true });
    const Pages = db.conn.model('Page', schema);
    await Pages.init();
    await Pages.create([
      { tenant: 't1', slug: 'home' },
      { tenant: 't2', slug: 'home' },
      { tenant: 't1', slug: 'about' },
    ]);
    await expect(Pages.create({ tenant: 't1', slug: 'home' })).rejects.toMatchObject({
      code: 11000,
      keyPattern: { tenant: 1, slug: 1 },
      keyValue: { tenant: 't1', slug: 'home' },
    });
  });

  it('fails to build a unique index over existing duplicates', async () => {
    const raw = db.conn.collection('dupes');
    await raw.insertMany([{ sku: 'a' }, { sku: 'a' }, { sku: 'b' }]);
    await expect(raw.createIndex({ sku: 1 }, { unique: true })).rejects.toMatchObject({ code: 11000 });
    const names = (await raw.listIndexes().toArray()).map((spec) => spec.name);
    expect(names).toEqual(['_id_']);
  });

  it('ignores documents without the field in a sparse unique index', async () => {
    const raw = db.conn.collection('sparse');
    await raw.createIndex({ badge: 1 }, { unique: true, sparse: true });
    await raw.insertMany([{ name: 'a' }, { name: 'b' }, { badge: 7 }]);
    await expect(raw.insertOne({ badge: 7 })).rejects.toMatchObject({ code: 11000, keyValue: { badge: 7 } });
  });

  it('enforces a partial unique index only on matching documents', async () => {
    const raw = db.conn.collection('partial');
    await raw.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { active: true } });
    await raw.insertMany([
      { email: 'a', active: false },
      { email: 'a', active: false },
      { email: 'a', active: true },
    ]);
    await expect(raw.insertOne({ email: 'a', active: true })).rejects.toMatchObject({ code: 11000 });
  });

  it('finds with a collation (case-insensitive equality and $in)', async () => {
    const raw = db.conn.collection('people');
    await raw.insertMany([{ name: 'Alpha' }, { name: 'alpha' }, { name: 'Beta' }, { name: 'Ålpha' }]);
    const strength2 = { locale: 'en', strength: 2 } as const;
    expect(await raw.countDocuments({ name: 'ALPHA' }, { collation: strength2 })).toBe(2);
    expect(await raw.countDocuments({ name: 'ALPHA' })).toBe(0);
    expect(await raw.countDocuments({ name: 'alpha' }, { collation: { locale: 'en', strength: 1 } })).toBe(3);
    expect(await raw.countDocuments({ name: { $in: ['BETA', 'x'] } }, { collation: strength2 })).toBe(1);
    expect(await raw.countDocuments({ name: { $ne: 'alpha' } }, { collation: strength2 })).toBe(2);
    const Model = db.conn.model('Person', new Schema({ name: String }), 'people');
    const found = await Model.find({ name: 'aLPHA' }).collation(strength2).sort({ name: 1 }).lean();
    expect(found.map((doc) => doc.name).sort()).toEqual(['Alpha', 'alpha']);
    const deleted = await raw.deleteMany({ name: 'BETA' }, { collation: strength2 });
    expect(deleted.deletedCount).toBe(1);
  });

  it('applies a collection default collation to queries', async () => {
    await db.conn.createCollection('tags', { collation: { locale: 'en', strength: 2 } });
    const raw = db.conn.collection('tags');
    await raw.insertMany([{ tag: 'News' }, { tag: 'sport' }]);
    expect(await raw.countDocuments({ tag: 'news' })).toBe(1);
    const [options] = await db.conn.db!.listCollections({ name: 'tags' }).toArray();
    expect(options).toMatchObject({ name: 'tags', type: 'collection', options: { collation: { locale: 'en', strength: 2 } } });
  });

  it('lists, reuses and drops indexes', async () => {
    const raw = db.conn.collection('indexed');
    expect(await raw.createIndex({ a: 1, b: -1 })).toBe('a_1_b_-1');
    expect(await raw.createIndex({ a: 1, b: -1 })).toBe('a_1_b_-1');
    const specs = await raw.listIndexes().toArray();
    expect(specs).toEqual([
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { a: 1, b: -1 }, name: 'a_1_b_-1' },
    ]);
    await raw.dropIndex('a_1_b_-1');
    await expect(raw.dropIndex('a_1_b_-1')).rejects.toMatchObject({ code: 27, codeName: 'IndexNotFound' });
    await expect(raw.dropIndex('_id_')).rejects.toMatchObject({ code: 72 });
  });

  it('reads through an index the current version of documents updated, replaced or removed since they were indexed', async () => {
    const raw = db.conn.db!.collection<{ _id: number; group: string; n: number; note: string }>('versions');
    await raw.createIndex({ group: 1 });
    await raw.insertMany([1, 2, 3, 4, 5].map((n) => ({ _id: n, group: 'g', n, note: 'first' })));
    await raw.updateOne({ _id: 2 }, { $set: { note: 'second' } });
    await raw.updateMany({ n: { $gte: 4 } }, { $inc: { n: 10 } });
    await raw.replaceOne({ _id: 3 }, { group: 'g', n: 3, note: 'replaced' });
    await raw.updateOne({ _id: 1 }, { $set: { group: 'h' } });
    await raw.deleteOne({ _id: 5 });
    const viaIndex = await raw.find({ group: 'g' }).hint({ group: 1 }).toArray();
    expect(viaIndex).toEqual([
      { _id: 2, group: 'g', n: 2, note: 'second' },
      { _id: 3, group: 'g', n: 3, note: 'replaced' },
      { _id: 4, group: 'g', n: 14, note: 'first' },
    ]);
    expect(await raw.find({ group: 'h' }).hint({ group: 1 }).toArray()).toEqual([{ _id: 1, group: 'h', n: 1, note: 'first' }]);
  });

  it('answers listIndexes on a missing collection with NamespaceNotFound (26)', async () => {
    await expect(db.conn.db!.command({ listIndexes: 'does_not_exist' })).rejects.toMatchObject({
      code: 26,
      codeName: 'NamespaceNotFound',
    });
  });
});
