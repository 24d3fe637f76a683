import * as fs from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { buildIsCurrent } from './build-state';

describe('npm start: whether the build is current', () => {
  let root: string;
  const at = (path: string, seconds: number) => {
    fs.mkdirSync(join(root, path, '..'), { recursive: true });
    if (!fs.existsSync(join(root, path))) fs.writeFileSync(join(root, path), '');
    fs.utimesSync(join(root, path), seconds, seconds);
  };

  beforeEach(() => {
    root = fs.mkdtempSync(join(os.tmpdir(), 'build-state-'));
    at('apps/authz/src/main.ts', 1_000);
    at('libs/auth/src/index.ts', 1_000);
    for (const dir of ['apps/authz/src', 'apps/authz', 'apps', 'libs/auth/src', 'libs/auth', 'libs']) at(dir, 1_000);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('is current when every output is newer than every source', () => {
    at('dist/main.js', 2_000);
    expect(buildIsCurrent(root, ['dist/main.js'])).toBe(true);
  });

  it('is out of date when a source changed after an output, or an output is missing', () => {
    at('dist/main.js', 2_000);
    at('libs/auth/src/index.ts', 3_000);
    expect(buildIsCurrent(root, ['dist/main.js'])).toBe(false);
    expect(buildIsCurrent(root, ['dist/main.js', 'dist/console/index.html'])).toBe(false);
  });

  it("does not count the console's generated API types, which the build writes after the services", () => {
    at('dist/main.js', 2_000);
    at('apps/console/src/api/generated/authz.d.ts', 2_500);
    at('apps/console/src/api/generated', 2_500);
    for (const dir of ['apps/console/src/api', 'apps/console/src', 'apps/console', 'apps']) at(dir, 1_000);
    expect(buildIsCurrent(root, ['dist/main.js'])).toBe(true);
  });
});
