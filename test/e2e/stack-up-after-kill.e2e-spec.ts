import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { stackSettings, stackStatus, stackUp } from '../../tools/stack';

const options = { profile: process.env.STACK_PROFILE ?? 'test', components: ['mongo' as const], log: () => undefined };
/** Only the in-repo store is the stack's own process (a real mongod given by MONGODB_URI is not the stack's to kill). */
const describeLocalStore = stackSettings(options).external.mongo === undefined ? describe : describe.skip;

/**
 * `npm run stack -- up` right after the suite's embedded store was killed with SIGKILL, as an
 * operator meets it: the first `up` works (the dead process's lock on the data directory is taken
 * over, with a line in the store's log saying so) and every write acknowledged before the kill is
 * there. The suite's later tests run on the store it brought back.
 */
describeLocalStore('stack up after a kill -9 of the store', () => {
  const database = `kill_${randomUUID().slice(0, 8)}`;
  afterAll(async () => {
    const { MONGODB_URI } = await stackUp(options);
    const client = new MongoClient(MONGODB_URI);
    await client.db(database).dropDatabase();
    await client.close();
  });

  it('comes back on the first try with every acknowledged write', async () => {
    const { MONGODB_URI } = await stackUp(options);
    const client = new MongoClient(MONGODB_URI, { serverSelectionTimeoutMS: 5000 });
    await client
      .db(database)
      .collection('items')
      .insertMany([{ n: 1 }, { n: 2 }, { n: 3 }], { writeConcern: { w: 1 } });
    await client.close();

    const [before] = await stackStatus(options);
    expect(before).toMatchObject({ name: 'mongo', state: 'running' });
    process.kill(before.pid as number, 'SIGKILL');
    await waitForExit(before.pid as number);

    await expect(stackUp(options)).resolves.toMatchObject({ MONGODB_URI });
    const [after] = await stackStatus(options);
    expect(after).toMatchObject({ state: 'running', healthy: true });
    expect(after.pid).not.toBe(before.pid);
    const log = fs.readFileSync(path.join(stackSettings(options).dataDir, 'mongo.log'), 'utf8');
    expect(log).toContain(`took over the lock of process ${before.pid}`);

    const again = new MongoClient(MONGODB_URI, { serverSelectionTimeoutMS: 5000 });
    const items = await again
      .db(database)
      .collection('items')
      .find({}, { projection: { _id: 0 } })
      .sort({ n: 1 })
      .toArray();
    await again.close();
    expect(items).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  }, 120_000);
});

/** Until the process is gone, or a zombie (killed; its parent may never reap it, as in a container whose init does not). */
async function waitForExit(pid: number): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    if (!alive(pid)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`process ${pid} did not exit`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = fs.existsSync(`/proc/${pid}/stat`) ? fs.readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}
