/**
 * Builds both services' OpenAPI documents offline (tools/openapi/documents.ts: exactly as the running
 * services build them for /docs) and turns them into the web console's API types: openapi-typescript writes `<service>.d.ts` next to
 * `<service>.openapi.json` in apps/console/src/api/generated/ (not committed: the console's types
 * always follow the code). Run under swc (decorator metadata): `npm run console:api`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildServiceDocument, serializeDocument, SERVICES } from '../openapi/documents';

export const GENERATED_DIR = path.join(__dirname, '..', '..', 'apps', 'console', 'src', 'api', 'generated');

async function main(): Promise<void> {
  fs.mkdirSync(GENERATED_DIR, { recursive: true });
  for (const service of SERVICES) {
    const document = await buildServiceDocument(service);
    fs.writeFileSync(path.join(GENERATED_DIR, `${service.name}.openapi.json`), serializeDocument(document));
    const types = astToString(await openapiTS(JSON.parse(JSON.stringify(document)), { exportType: true, alphabetize: true }));
    const header = `// Generated from ${service.name}'s OpenAPI document by tools/console/openapi.ts: do not edit.\n`;
    fs.writeFileSync(path.join(GENERATED_DIR, `${service.name}.d.ts`), header + types);
    process.stdout.write(`console: ${service.name} API types from ${Object.keys(document.paths).length} paths\n`);
  }
}

main().catch((error: Error) => {
  process.stderr.write(`console: the OpenAPI documents could not be built: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
