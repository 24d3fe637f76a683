/**
 * Rewrites the committed snapshots of both services' OpenAPI documents (docs/openapi/<service>.json),
 * which tools/openapi/openapi.spec.ts compares with the documents the code builds: a change to a
 * public schema is then a deliberate, reviewed diff. `npm run openapi:snapshot`.
 */
import * as fs from 'node:fs';
import { buildServiceDocument, serializeDocument, SERVICES, SNAPSHOT_DIR, snapshotPath } from './documents';

async function main(): Promise<void> {
  fs.mkdirSync(SNAPSHOT_DIR, { recursive: true });
  for (const service of SERVICES) {
    const document = await buildServiceDocument(service);
    fs.writeFileSync(snapshotPath(service.name), serializeDocument(document));
    process.stdout.write(`openapi: ${snapshotPath(service.name)} (${Object.keys(document.paths).length} paths)\n`);
  }
}

main().catch((error: Error) => {
  process.stderr.write(`openapi: the snapshots could not be written: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
