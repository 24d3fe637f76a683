import { connect, type Socket } from 'node:net';
import { deserialize, serialize, type Document } from 'bson';
import { MongoClient } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongoHandle } from '../src';

const OP_MSG = 2013;
const ROWS = 40_000;
const SLOW_PIPELINE = [{ $group: { _id: { k: '$k', m: '$m' }, n: { $sum: 1 }, total: { $sum: '$v' } } }, { $sort: { total: -1 } }];

/** One OP_MSG with a single body section. */
function opMsg(requestId: number, command: Document): Buffer {
  const body = serialize(command);
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + 4 + 1 + body.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(OP_MSG, 12);
  return Buffer.concat([header, Buffer.alloc(4), Buffer.from([0]), body]);
}

/** A raw connection that sends several commands at once (pipelined) and reads their replies by requestId. */
function rawConnection(port: number): Promise<{ socket: Socket; replies: Map<number, Document>; next: (count: number) => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve({ socket, replies, next }));
    const replies = new Map<number, Document>();
    let buffered = Buffer.alloc(0);
    const waiting: { count: number; done: () => void }[] = [];
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= buffered.readInt32LE(0)) {
        const length = buffered.readInt32LE(0);
        // header (16), flags (4), section kind (1), then the reply document
        replies.set(buffered.readInt32LE(8), deserialize(buffered.subarray(21, length)));
        buffered = buffered.subarray(length);
      }
      for (const wait of waiting.filter((w) => replies.size >= w.count)) wait.done();
    });
    const next = (count: number) =>
      new Promise<void>((done) => {
        if (replies.size >= count) done();
        else waiting.push({ count, done });
      });
  });
}

/**
 * The store's side of the services' time limits: `maxTimeMS` counts from when a command is read
 * off its connection, so a command that waited behind earlier ones past its limit fails with
 * MaxTimeMSExpired (code 50) and does none of its work; an operation whose client went away stops,
 * and the commands it had queued never run. (The waiting is this store's: a mongod reads a
 * connection's next command only after answering the previous one, so these run against it only.)
 */
describe('embedded-mongo: time limits and abandoned operations', () => {
  let server: EmbeddedMongoHandle;
  let client: MongoClient;
  const dbName = 'limits';
  const slowMs = { value: 0 };

  const slowAggregate = (maxTimeMS?: number) => ({
    aggregate: 'rows',
    pipeline: SLOW_PIPELINE,
    cursor: {},
    $db: dbName,
    ...(maxTimeMS ? { maxTimeMS } : {}),
  });

  beforeAll(async () => {
    server = await startEmbeddedMongo({ port: 0 });
    client = await MongoClient.connect(server.uri);
    const rows = client.db(dbName).collection('rows');
    for (let offset = 0; offset < ROWS; offset += 10_000) {
      await rows.insertMany(Array.from({ length: 10_000 }, (_, i) => ({ k: (offset + i) % 997, m: (offset + i) % 13, v: offset + i })));
    }
    // how long the slow command takes alone on this machine now
    const started = performance.now();
    await client.db(dbName).command(slowAggregate());
    slowMs.value = performance.now() - started;
  }, 60_000);

  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('fails a command over its maxTimeMS with MaxTimeMSExpired', async () => {
    await expect(client.db(dbName).collection('rows').aggregate(SLOW_PIPELINE, { maxTimeMS: 1 }).toArray()).rejects.toMatchObject({
      code: 50,
      codeName: 'MaxTimeMSExpired',
    });
  });

  it(
    'counts the time a command waited behind the earlier commands ' + 'of its connection, and does not run it once past its limit',
    async () => {
      expect(slowMs.value).toBeGreaterThan(8);
      const limit = Math.max(2, Math.floor(slowMs.value / 4));
      const connection = await rawConnection(server.port);
      try {
        // both written at once: the insert is received now and waits for the aggregation
        connection.socket.write(
          Buffer.concat([
            opMsg(1, slowAggregate()),
            opMsg(2, { insert: 'late', documents: [{ waited: true }], maxTimeMS: limit, $db: dbName }),
          ]),
        );
        await connection.next(2);
        expect(connection.replies.get(1)).toMatchObject({ ok: 1 });
        expect(connection.replies.get(2)).toMatchObject({ ok: 0, code: 50, codeName: 'MaxTimeMSExpired' });
        expect(await client.db(dbName).collection('late').countDocuments()).toBe(0);
      } finally {
        connection.socket.destroy();
      }
    },
  );

  it('runs a command that waited less than its limit', async () => {
    const connection = await rawConnection(server.port);
    try {
      connection.socket.write(
        Buffer.concat([
          opMsg(1, slowAggregate()),
          opMsg(2, { insert: 'patient', documents: [{ waited: true }], maxTimeMS: 600_000, $db: dbName }),
        ]),
      );
      await connection.next(2);
      expect(connection.replies.get(2)).toMatchObject({ ok: 1, n: 1 });
    } finally {
      connection.socket.destroy();
    }
  });

  it('stops the operation of a client that went away, and never runs the commands it had queued', async () => {
    const running = async () => ((await client.db('admin').command({ currentOp: 1, ns: `${dbName}.rows` })).inprog as unknown[]).length;
    const connection = await rawConnection(server.port);
    connection.socket.write(
      Buffer.concat([
        opMsg(1, slowAggregate()),
        opMsg(2, slowAggregate()),
        opMsg(3, { insert: 'orphan', documents: [{ queued: true }], $db: dbName }),
      ]),
    );
    const seen = performance.now();
    while ((await running()) === 0) {
      if (performance.now() - seen > 5_000) throw new Error('the aggregation never showed in currentOp');
      await new Promise((resolve) => setImmediate(resolve));
    }
    connection.socket.destroy();
    const left = performance.now();
    while ((await running()) > 0) {
      if (performance.now() - left > 5_000) throw new Error('the aggregation kept running after its client left');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    // stopped well before the two aggregations it had asked for would have ended
    expect(performance.now() - left).toBeLessThan(slowMs.value * 2);
    await new Promise((resolve) => setTimeout(resolve, slowMs.value * 3));
    expect(await client.db(dbName).collection('orphan').countDocuments()).toBe(0);
    expect(connection.replies.size).toBe(0);
  });
});
