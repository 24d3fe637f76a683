import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Decimal128, Long, MongoClient, ObjectId } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongoHandle } from '../src';
import { externalUri } from './test-database';

/** The data directory only exists on the embedded store; a real mongod has its own. */
const describeServer = externalUri ? describe.skip : describe;

describeServer('embedded-mongo: a data directory keeps every acknowledged write', () => {
  let dir: string;
  let server: EmbeddedMongoHandle | undefined;
  let client: MongoClient | undefined;
  const logs: string[] = [];

  async function start(options: { checkpointMinBytes?: number; journalSegmentBytes?: number } = {}): Promise<MongoClient> {
    server = await startEmbeddedMongo({ dataDir: dir, log: (line) => logs.push(line), ...options });
    client = await MongoClient.connect(server.uri, { serverSelectionTimeoutMS: 5000 });
    return client;
  }

  async function stop(): Promise<void> {
    await client?.close();
    await server?.close();
    client = undefined;
    server = undefined;
  }

  const segments = (): string[] =>
    fs
      .readdirSync(dir)
      .filter((name) => /^journal-\d+\.log$/.test(name))
      .sort();

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mts-durability-'));
    logs.length = 0;
  });

  afterEach(async () => {
    await stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('restores documents, every index spec and every kind of write after a restart', async () => {
    let db = (await start()).db('app');
    const people = db.collection('people');
    await db.createCollection('tags', { collation: { locale: 'en', strength: 2 } });
    await people.createIndex({ email: 1 }, { unique: true });
    await people.createIndex({ name: 1 }, { unique: true, collation: { locale: 'en', strength: 2 }, name: 'name_ci' });
    await people.createIndex({ team: 1, joined: -1 });
    await people.createIndex({ nick: 1 }, { unique: true, partialFilterExpression: { nick: { $type: 'string' } } });
    await people.createIndex({ gone: 1 });
    const id = new ObjectId();
    await people.insertMany([
      {
        _id: id,
        email: 'ada@example.com',
        name: 'Ada',
        team: 'x',
        joined: new Date(1),
        money: Decimal128.fromString('1.10'),
        big: Long.fromString('9007199254740993'),
      },
      { email: 'bob@example.com', name: 'Bob', team: 'x', joined: new Date(2) },
      { email: 'cy@example.com', name: 'Cy', team: 'y', joined: new Date(3) },
    ]);
    await people.updateOne({ _id: id }, { $set: { team: 'y' } });
    await people.deleteOne({ email: 'cy@example.com' });
    await people.updateOne({ email: 'dee@example.com' }, { $set: { name: 'Dee' } }, { upsert: true });
    await people.findOneAndUpdate({ email: 'bob@example.com' }, { $inc: { visits: 1 } });
    await people.dropIndex('gone_1');
    await db.collection('scratch').insertOne({ a: 1 });
    await db.collection('scratch').drop();
    const specsBefore = await people.listIndexes().toArray();
    await stop();

    db = (await start()).db('app');
    const restored = db.collection('people');
    expect(await restored.listIndexes().toArray()).toEqual(specsBefore);
    expect(await restored.find({}, { sort: { email: 1 }, projection: { _id: 0, email: 1, team: 1, visits: 1 } }).toArray()).toEqual([
      { email: 'ada@example.com', team: 'y' },
      { email: 'bob@example.com', team: 'x', visits: 1 },
      { email: 'dee@example.com' },
    ]);
    const ada = await restored.findOne({ _id: id });
    expect(ada?.money).toEqual(Decimal128.fromString('1.10'));
    expect(ada?.big).toEqual(Long.fromString('9007199254740993'));
    expect((await db.listCollections({}, { nameOnly: false }).toArray()).map((c) => c.name).sort()).toEqual(['people', 'tags']);
    expect(((await db.listCollections({ name: 'tags' }).toArray())[0] as { options?: unknown }).options).toMatchObject({
      collation: { locale: 'en', strength: 2 },
    });
    // Unique indexes (including the case-insensitive one) hold after recovery.
    await expect(restored.insertOne({ email: 'ada@example.com' })).rejects.toMatchObject({ code: 11000 });
    await expect(restored.insertOne({ email: 'new@example.com', name: 'ADA' })).rejects.toMatchObject({
      code: 11000,
      keyPattern: { name: 1 },
    });
    // Non-unique indexes answer queries after recovery.
    const plan = await restored.find({ team: 'y' }).explain('executionStats');
    expect(plan.queryPlanner.winningPlan.inputStage).toMatchObject({ stage: 'IXSCAN', indexName: 'team_1_joined_-1' });
    expect(plan.executionStats.nReturned).toBe(1);
    expect(logs.some((line) => /recovered 3 documents in 2 collections/.test(line))).toBe(true);
  });

  it('checkpoints, then drops the journal it replaces, and recovers from checkpoint + journal', async () => {
    const items = (await start({ checkpointMinBytes: 1 })).db('app').collection('items');
    await items.createIndex({ n: 1 }, { unique: true });
    await items.insertMany(Array.from({ length: 5000 }, (_, n) => ({ n, pad: 'x'.repeat(100) })));
    await server?.checkpoint();
    await items.deleteMany({ n: { $lt: 4000 } });
    await server?.checkpoint();
    await items.insertOne({ n: 99999 });
    const files = fs.readdirSync(dir);
    expect(files.filter((name) => name.endsWith('.ckpt'))).toHaveLength(1);
    // Only the segment written since the last checkpoint remains; sizes follow the live data.
    expect(segments()).toHaveLength(1);
    const checkpointBytes = fs.statSync(path.join(dir, files.find((name) => name.endsWith('.ckpt')) as string)).size;
    expect(checkpointBytes).toBeLessThan(1001 * 200);
    await stop();

    const restored = (await start()).db('app').collection('items');
    expect(await restored.countDocuments()).toBe(1001);
    expect(await restored.countDocuments({ n: { $gte: 4000 } })).toBe(1001);
    await expect(restored.insertOne({ n: 4500 })).rejects.toMatchObject({ code: 11000 });
  });

  it(
    'checkpoints only once the files hold as much garbage as data: ' +
      'inserts alone fill journal segments, replaced versions call for one',
    async () => {
      const options = { checkpointMinBytes: 50_000, journalSegmentBytes: 20_000 };
      const items = (await start(options)).db('app').collection('items');
      await items.createIndex({ n: 1 });
      for (let batch = 0; batch < 10; batch++)
        await items.insertMany(Array.from({ length: 100 }, (_, k) => ({ n: batch * 100 + k, pad: 'x'.repeat(100) })));
      const ckpt = (): string[] => fs.readdirSync(dir).filter((name) => name.endsWith('.ckpt'));
      expect(ckpt()).toHaveLength(0);
      expect(segments().length).toBeGreaterThan(4);
      await stop();

      let restored = (await start(options)).db('app').collection('items');
      expect(await restored.countDocuments()).toBe(1000);
      expect(logs.some((line) => /recovered 1,000 documents in 1 collections .*checkpoint none, \d+ journal segments/.test(line))).toBe(
        true,
      );
      for (let round = 0; round < 3; round++) await restored.updateMany({}, { $set: { pad: `${round}`.repeat(100) } });
      const deadline = Date.now() + 10_000;
      while (ckpt().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(ckpt()).toHaveLength(1);
      await stop();
      const onDisk = fs.readdirSync(dir).reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0);
      expect(onDisk).toBeLessThan(3 * 1000 * 200);

      restored = (await start(options)).db('app').collection('items');
      expect(await restored.countDocuments({ pad: '2'.repeat(100) })).toBe(1000);
      expect((await restored.find({ n: 500 }).explain()).queryPlanner.winningPlan.inputStage).toMatchObject({ stage: 'IXSCAN' });
    },
  );

  it('journals inserted documents as received, with the _id the driver appended moved first', async () => {
    const items = (await start()).db('app').collection('items');
    await items.insertMany([
      { name: 'a', nested: { x: [1, { y: 'z' }] }, at: new Date(5), n: Long.fromNumber(7) },
      { _id: 'given' as never, name: 'b' },
    ]);
    await items.insertOne({ name: 'c', amount: Decimal128.fromString('1.50') });
    const before = await items.find({}).sort({ name: 1 }).toArray();
    expect(before.every((doc) => Object.keys(doc)[0] === '_id')).toBe(true);
    await stop();
    const after = await (await start()).db('app').collection('items').find({}).sort({ name: 1 }).toArray();
    expect(after).toEqual(before);
    expect(after.map((doc) => Object.keys(doc))).toEqual(before.map((doc) => Object.keys(doc)));
  });

  it('recovers a journal cut short up to its last whole record, says so, and starts cleanly next time', async () => {
    const items = (await start()).db('app').collection('items');
    await items.insertMany(Array.from({ length: 100 }, (_, n) => ({ n })));
    await stop();
    const [segment] = segments();
    const file = path.join(dir, segment);
    const size = fs.statSync(file).size;
    fs.truncateSync(file, size - 10); // the last record loses its end, as after a crash mid-write

    const restored = (await start()).db('app').collection('items');
    expect(await restored.countDocuments()).toBe(99);
    expect(
      logs.filter((line) =>
        /journal journal-\d+\.log: the last record is cut short at byte \d+ of \d+; recovered up to the last whole record/.test(line),
      ),
    ).toHaveLength(1);
    await restored.insertOne({ n: 100 });
    await stop();
    logs.length = 0;
    const again = (await start()).db('app').collection('items');
    expect(await again.countDocuments()).toBe(100);
    expect(logs.some((line) => /cut short|checksum/.test(line))).toBe(false);
  });

  it('stops at a corrupt record: keeps what came before, sets the rest aside', async () => {
    const items = (await start()).db('app').collection('items');
    for (let n = 0; n < 10; n++) await items.insertOne({ n, text: `record number ${n}` });
    await stop();
    const [segment] = segments();
    const file = path.join(dir, segment);
    const bytes = fs.readFileSync(file);
    const at = bytes.indexOf('record number 7');
    bytes[at] ^= 0xff; // one flipped byte in the eighth insert
    fs.writeFileSync(file, bytes);

    const restored = (await start()).db('app').collection('items');
    expect((await restored.find({}, { sort: { n: 1 } }).toArray()).map((doc) => doc.n)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(logs.some((line) => /a record fails its checksum/.test(line))).toBe(true);
    expect(fs.readdirSync(dir).some((name) => name.includes('.discarded-'))).toBe(true);
  });

  it('refuses a data directory another live server holds', async () => {
    await start();
    await expect(startEmbeddedMongo({ dataDir: dir, log: () => undefined })).rejects.toThrow(/is in use by process/);
  });

  it('waits for the disk before acknowledging a write with j: true', async () => {
    const items = (await start()).db('app').collection('items');
    await items.insertOne({ durable: true }, { writeConcern: { j: true } });
    expect(await items.countDocuments({ durable: true })).toBe(1);
  });
});
