import { ObjectId } from 'bson';
import type { CommandStartedEvent } from 'mongodb';
import { Schema, type Model } from 'mongoose';
import { externalUri, openTestDatabase, testServerOnly, type TestDatabase } from './test-database';

describe('embedded-mongo: commands and errors through mongoose', () => {
  let db: TestDatabase;
  let Things: Model<{ name: string; seq?: number }>;
  const started: CommandStartedEvent[] = [];

  beforeAll(async () => {
    db = await openTestDatabase('protocol', { monitorCommands: true });
    db.conn.getClient().on('commandStarted', (event: CommandStartedEvent) => started.push(event));
    Things = db.conn.model<{ name: string; seq?: number }>(
      'Thing',
      new Schema<{ name: string; seq?: number }>({ name: { type: String, unique: true }, seq: Number }),
    );
    await Things.init();
  });

  afterAll(async () => {
    await db.close();
  });

  beforeEach(async () => {
    await Things.deleteMany({});
    started.length = 0;
  });

  it('answers ping, buildInfo and hello like a standalone mongod 7', async () => {
    const admin = db.conn.db!.admin();
    expect(await admin.ping()).toMatchObject({ ok: 1 });
    const info = await admin.buildInfo();
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    const hello = await db.conn.db!.command({ hello: 1 });
    expect(hello).toMatchObject({ isWritablePrimary: true, maxWriteBatchSize: 100000, logicalSessionTimeoutMinutes: 30 });
    expect(hello.maxWireVersion).toBeGreaterThanOrEqual(21);
    expect(hello.setName).toBeUndefined();
    expect(typeof hello.connectionId).toBe('number');
  });

  testServerOnly('reports version 7.0.0 and leaves topologyVersion out', async () => {
    expect((await db.conn.db!.admin().buildInfo()).version).toBe('7.0.0');
    const hello = await db.conn.db!.command({ hello: 1 });
    expect(hello).toMatchObject({ helloOk: true, maxWireVersion: 21, minWireVersion: 0 });
    expect(hello.topologyVersion).toBeUndefined();
  });

  it('answers create on an existing collection with NamespaceExists (48)', async () => {
    await expect(db.conn.db!.command({ create: 'things' })).rejects.toMatchObject({ code: 48, codeName: 'NamespaceExists' });
  });

  it('answers drop on a missing collection with success, as mongod 7 does', async () => {
    await expect(db.conn.db!.command({ drop: 'never_created' })).resolves.toMatchObject({ ok: 1 });
  });

  it('creates, lists and drops collections and databases', async () => {
    await db.conn.createCollection('temp_collection');
    const names = (await db.conn.db!.listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
    expect(names).toEqual(expect.arrayContaining(['things', 'temp_collection']));
    expect(await db.conn.db!.listCollections({ name: 'temp_collection' }).toArray()).toHaveLength(1);
    expect(await db.conn.dropCollection('temp_collection')).toBe(true);
    const { databases } = await db.conn.db!.admin().listDatabases();
    expect(databases.map((entry) => entry.name)).toContain(db.conn.name);
  });

  it('answers an unknown command with CommandNotFound (59)', async () => {
    await expect(db.conn.db!.command({ frobnicate: 1 })).rejects.toMatchObject({
      code: 59,
      codeName: 'CommandNotFound',
      errmsg: "no such command: 'frobnicate'",
    });
  });

  it('refuses transactions like a standalone mongod (20 IllegalOperation)', async () => {
    const session = await db.conn.startSession();
    try {
      const attempt = session.withTransaction(async () => {
        await Things.create([{ name: 'in-transaction' }], { session });
      });
      await expect(attempt).rejects.toMatchObject({
        code: 20,
        codeName: 'IllegalOperation',
        message: 'Transaction numbers are only allowed on a replica set member or mongos',
      });
    } finally {
      await session.endSession();
    }
    expect(await Things.countDocuments({ name: 'in-transaction' })).toBe(0);
  });

  it('reports a malformed operator as BadValue and keeps the connection usable', async () => {
    await expect(Things.collection.find({ seq: { $foo: 1 } }).toArray()).rejects.toMatchObject({
      code: 2,
      codeName: 'BadValue',
      errmsg: 'unknown operator: $foo',
    });
    await expect(Things.collection.updateOne({}, { $bogus: { a: 1 } } as never)).rejects.toMatchObject({ code: 9 });
    await Things.create({ name: 'still works' });
    expect(await Things.countDocuments()).toBe(1);
  });

  it('returns partial success and writeErrors from an unordered bulkWrite', async () => {
    await Things.create({ name: 'taken', seq: 0 });
    const error = await Things.bulkWrite(
      [
        { insertOne: { document: { name: 'one', seq: 1 } } },
        { insertOne: { document: { name: 'taken', seq: 2 } } },
        { updateOne: { filter: { name: 'one' }, update: { $set: { seq: 10 } } } },
        { updateOne: { filter: { name: 'ghost' }, update: { $set: { seq: 3 } }, upsert: true } },
        { deleteOne: { filter: { name: 'taken' } } },
        { insertOne: { document: { name: 'one', seq: 4 } } },
      ],
      { ordered: false },
    ).catch((e: unknown) => e as { code?: number; writeErrors?: unknown[]; result?: Record<string, unknown> });
    expect(error).toMatchObject({ code: 11000 });
    const writeErrors = (error as { writeErrors: Array<{ index: number; code: number; errInfo?: unknown; err?: unknown }> }).writeErrors;
    expect(writeErrors.map((entry) => [entry.index, entry.code])).toEqual([
      [1, 11000],
      [5, 11000],
    ]);
    const result = (error as { result: { insertedCount: number; matchedCount: number; upsertedCount: number; deletedCount: number } })
      .result;
    expect(result).toMatchObject({ insertedCount: 1, matchedCount: 1, upsertedCount: 1, deletedCount: 1 });
    expect(await Things.find({}, { _id: 0, name: 1, seq: 1 }).sort({ name: 1 }).lean()).toEqual([
      { name: 'ghost', seq: 3 },
      { name: 'one', seq: 10 },
    ]);
  });

  it('stops an ordered insertMany at the first duplicate', async () => {
    const error = await Things.collection
      .insertMany([{ name: 'a' }, { name: 'a' }, { name: 'b' }])
      .catch((e: unknown) => e as { insertedCount?: number; writeErrors?: unknown[] });
    expect(error).toMatchObject({ code: 11000, insertedCount: 1 });
    expect(await Things.countDocuments()).toBe(1);
  });

  it('inserts 20,000 documents and pages through them with getMore', async () => {
    const docs = Array.from({ length: 20_000 }, (_, i) => ({ name: `n${i}`, seq: i }));
    const inserted = await Things.insertMany(docs, { lean: true });
    expect(inserted).toHaveLength(20_000);
    started.length = 0;
    let expected = 0;
    for await (const doc of Things.find({}, { seq: 1 }).sort({ seq: 1 }).batchSize(1_000).lean().cursor()) {
      expect(doc.seq).toBe(expected++);
    }
    expect(expected).toBe(20_000);
    const getMores = started.filter((event) => event.commandName === 'getMore');
    expect(getMores.length).toBeGreaterThanOrEqual(19);

    // Default batch sizes: mongod answers the first find with 101 documents.
    const raw = await Things.collection.find({ seq: { $gte: 100 } }).toArray();
    expect(raw).toHaveLength(19_900);
    expect(await Things.findOne({ name: 'n19999' }).lean()).toMatchObject({ seq: 19_999 });
    expect(await Things.countDocuments({ seq: { $lt: 500 } })).toBe(500);
  });

  it('applies unacknowledged (w: 0) writes without a reply', async () => {
    await Things.collection.insertOne({ name: 'fire-and-forget' }, { writeConcern: { w: 0 } });
    await expect(Things.collection.findOne({ name: 'fire-and-forget' })).resolves.toMatchObject({ name: 'fire-and-forget' });
  });

  it('kills an open cursor', async () => {
    await Things.insertMany(Array.from({ length: 50 }, (_, i) => ({ name: `k${i}`, seq: i })));
    const cursor = Things.collection.find({}, { batchSize: 10 });
    await cursor.next();
    await cursor.close();
    const kill = started.find((event) => event.commandName === 'killCursors');
    expect(kill).toBeDefined();
    const getMore = await db.conn.db!.command({ getMore: kill!.command.cursors[0], collection: 'things' }).catch((e: unknown) => e);
    expect(getMore).toMatchObject({ code: 43, codeName: 'CursorNotFound' });
  });

  it('finds a single batch with a limit and by _id', async () => {
    const created = await Things.create({ name: 'by-id', seq: 1 });
    expect(await Things.findById(created._id).lean()).toMatchObject({ name: 'by-id' });
    expect(await Things.findById(new ObjectId()).lean()).toBeNull();
    expect(await Things.find({ _id: { $in: [created._id, new ObjectId()] } }).lean()).toHaveLength(1);
  });

  if (!externalUri) {
    it('rejects a legacy OP_QUERY command other than the handshake', async () => {
      const { connect } = await import('node:net');
      const { serialize, deserialize } = await import('bson');
      const { hostname: host, port } = new URL(db.uri);
      const body = serialize({ find: 'things' });
      const ns = Buffer.from('x.$cmd\0');
      const header = Buffer.alloc(16);
      const fields = Buffer.alloc(8);
      fields.writeInt32LE(-1, 4);
      const length = 16 + 4 + ns.length + 8 + body.length;
      header.writeInt32LE(length, 0);
      header.writeInt32LE(1, 4);
      header.writeInt32LE(2004, 12);
      const message = Buffer.concat([header, Buffer.alloc(4), ns, fields, body]);
      const reply = await new Promise<Buffer>((resolve, reject) => {
        const socket = connect(Number(port), host, () => socket.write(message));
        const chunks: Buffer[] = [];
        socket.on('data', (chunk) => {
          chunks.push(chunk);
          const all = Buffer.concat(chunks);
          if (all.length >= 4 && all.length >= all.readInt32LE(0)) {
            socket.destroy();
            resolve(all);
          }
        });
        socket.on('error', reject);
      });
      expect(reply.readInt32LE(12)).toBe(1);
      expect(deserialize(reply.subarray(36))).toMatchObject({ ok: 0, code: 352 });
    });
  }
});
