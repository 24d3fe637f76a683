import { MongoClient } from 'mongodb';
import * as fs from 'node:fs';
import { startMongoTestServer } from './tools/mongo-test-server/src';
import { lineItem } from './bench/support/line-items';
import { CostLineItemSchema } from './apps/costasset/src/line-items/schemas/cost-line-item.schema';
(async () => {
  const dir = '/tmp/store2/recover-dir';
  if (process.argv[2] === 'load') {
    fs.rmSync(dir, { recursive: true, force: true });
    const server = await startMongoTestServer({ port: 0, dataDir: dir });
    const client = await MongoClient.connect(server.uri);
    const c = client.db('x').collection('y');
    await c.createIndexes(CostLineItemSchema.indexes().map(([key]) => ({ key })) as never);
    for (let i = 0; i < 100_000; i += 10_000) await c.insertMany(Array.from({ length: 10_000 }, (_, k) => lineItem(i + k)));
    await client.close(); await server.close();
    return;
  }
  const t = performance.now();
  const server = await startMongoTestServer({ port: 0, dataDir: dir });
  console.log('recovery ms', Math.round(performance.now() - t));
  await server.close();
})();
