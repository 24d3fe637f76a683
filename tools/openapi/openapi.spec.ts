import * as fs from 'node:fs';
import { buildServiceDocument, serializeDocument, SERVICES, snapshotPath } from './documents';

const UPDATE = 'If the change to the public API is intended, run `npm run openapi:snapshot` and commit docs/openapi/.';

/** Where two JSON values differ, as `<JSON pointer>: <snapshot> → <built>` lines. */
function differences(expected: unknown, actual: unknown, pointer = ''): string[] {
  if (JSON.stringify(expected) === JSON.stringify(actual)) return [];
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
  if (isObject(expected) && isObject(actual) && Array.isArray(expected) === Array.isArray(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    const inner = keys.flatMap((key) =>
      differences(expected[key], actual[key], `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`),
    );
    // the same members in another order
    return inner.length > 0 ? inner : [`${pointer || '/'}: the keys are in another order`];
  }
  const show = (value: unknown) => (value === undefined ? '(absent)' : JSON.stringify(value));
  return [`${pointer || '/'}: ${show(expected)} → ${show(actual)}`];
}

describe('the OpenAPI documents match their committed snapshots (docs/openapi/)', () => {
  it.each(SERVICES.map((service) => [service.name, service] as const))('%s', async (_name, service) => {
    const built = serializeDocument(await buildServiceDocument(service));
    const committed = fs.readFileSync(snapshotPath(service.name), 'utf8');
    if (built === committed) return;
    const found = differences(JSON.parse(committed), JSON.parse(built));
    const shown = found.slice(0, 40).map((line) => `  ${line.length > 400 ? `${line.slice(0, 400)}…` : line}`);
    if (found.length > shown.length) shown.push(`  … and ${found.length - shown.length} more`);
    throw new Error(`${service.name}'s OpenAPI document differs from ${snapshotPath(service.name)}:\n${shown.join('\n')}\n${UPDATE}`);
  });
});
