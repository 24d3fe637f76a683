import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The import rules of `npm run lint` (eslint.config.mjs, .dependency-cruiser.cjs), run for real on
 * tools/lint/fixtures: each fixture is refused by the rule it breaks, and the clean one passes.
 * Both tools run in a child process as `npm run lint` runs them (ESLint loads its ESM config and
 * dependency-cruiser is ESM-only, which Jest's CommonJS runtime does not load).
 */
const ROOT = join(__dirname, '..', '..');

/**
 * The fixtures, copied for the run, plus the one that imports a file inside a library: written
 * here so that no file of the repository holds a deep `@lib` import, not even on purpose.
 */
const FIXTURES = mkdtempSync(join(tmpdir(), 'lint-fixtures-'));
cpSync(join(__dirname, 'fixtures'), FIXTURES, { recursive: true });
const DEEP_IMPORT = ['@lib', 'http', 'problem'].join('/');
writeFileSync(
  join(FIXTURES, 'apps/demo/src/deep-import.ts'),
  `// Refused: a file inside a library, not its barrel.\nimport { PROBLEM } from '${DEEP_IMPORT}';\n\nexport const SHOWN = PROBLEM;\n`,
);
afterAll(() => rmSync(FIXTURES, { recursive: true, force: true }));

interface EslintMessage {
  ruleId: string | null;
  message: string;
}

/** ESLint on a fixture's text, as if the file stood at the same path in the repository (so `libs/http/**` rules apply). */
function eslint(fixture: string): EslintMessage[] {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/eslint/bin/eslint.js'), '--format', 'json', '--stdin', '--stdin-filename', fixture],
    {
      cwd: ROOT,
      input: readFileSync(join(FIXTURES, fixture), 'utf8'),
      encoding: 'utf8',
    },
  );
  if (run.status !== 0 && run.status !== 1) throw new Error(`eslint failed: ${run.stderr}`);
  const [result] = JSON.parse(run.stdout) as { messages: EslintMessage[] }[];
  return result.messages;
}

interface Violation {
  rule: string;
  from: string;
  to: string;
  cycle: string[];
}

/** dependency-cruiser with the repository's rules, from the fixtures folder (its tsconfig.json maps `@lib/*`). */
function depcruise(...entries: string[]): Violation[] {
  const run = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      '--config',
      join(ROOT, '.dependency-cruiser.cjs'),
      '--output-type',
      'json',
      ...entries,
    ],
    { cwd: FIXTURES, encoding: 'utf8' },
  );
  if (run.status === null || run.stdout === '') throw new Error(`depcruise failed: ${run.stderr}`);
  const { summary } = JSON.parse(run.stdout) as {
    summary: { violations: { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }[] };
  };
  return summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to, cycle: (v.cycle ?? []).map((step) => step.name) }));
}

describe('ESLint: imports of the libraries', () => {
  it('refuses a deep import of a library (a file inside it, not its barrel)', () => {
    const messages = eslint('apps/demo/src/deep-import.ts');
    expect(messages).toEqual([
      expect.objectContaining({ ruleId: 'no-restricted-imports', message: expect.stringContaining(`'${DEEP_IMPORT}'`) }),
    ]);
    expect(messages[0].message).toContain('through its barrel');
  });

  it("refuses a library's import of a library outside its layers", () => {
    const messages = eslint('libs/http/src/imports-auth.ts');
    expect(messages).toEqual([
      expect.objectContaining({ ruleId: 'no-restricted-imports', message: expect.stringContaining('@lib/http may import only @lib/core') }),
    ]);
  });

  it('passes barrels only', () => {
    expect(eslint('apps/demo/src/clean.ts')).toEqual([]);
  });
});

describe('dependency-cruiser: cycles and layers on resolved paths', () => {
  it('refuses an import cycle', () => {
    const violations = depcruise('apps/demo/src/cycle-a.ts');
    expect(violations).toEqual([expect.objectContaining({ rule: 'no-circular' })]);
    expect(violations[0].cycle).toEqual(expect.arrayContaining(['apps/demo/src/cycle-a.ts', 'apps/demo/src/cycle-b.ts']));
  });

  it('refuses a cycle of type-only imports', () => {
    const violations = depcruise('apps/demo/src/type-cycle-a.ts');
    expect(violations).toEqual([expect.objectContaining({ rule: 'no-circular' })]);
    expect(violations[0].cycle).toEqual(expect.arrayContaining(['apps/demo/src/type-cycle-a.ts', 'apps/demo/src/type-cycle-b.ts']));
  });

  it("refuses a library's import of a library outside its layers", () => {
    expect(depcruise('libs/http/src/imports-auth.ts')).toEqual([
      expect.objectContaining({ rule: 'lib-layers-http', from: 'libs/http/src/imports-auth.ts', to: 'libs/auth/src/index.ts' }),
    ]);
  });

  it('refuses an import of a file inside a library', () => {
    expect(depcruise('apps/demo/src/deep-import.ts')).toEqual([
      expect.objectContaining({
        rule: 'lib-through-barrel-outside-libs',
        from: 'apps/demo/src/deep-import.ts',
        to: 'libs/http/src/problem.ts',
      }),
    ]);
  });

  it('passes barrels only, without a cycle', () => {
    expect(depcruise('apps/demo/src/clean.ts')).toEqual([]);
  });
});
