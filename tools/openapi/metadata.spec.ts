import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

// In a child process: the generator formats with Prettier, whose dynamic imports Jest's CommonJS runtime refuses.
describe('the committed Swagger plugin metadata (apps/<service>/src/metadata.ts)', () => {
  it('is what the DTOs give (else: npm run openapi:metadata)', () => {
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'tools/openapi/metadata.ts', '--check'], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (error) {
      throw new Error((error as { stderr?: string }).stderr || (error as Error).message);
    }
  }, 120_000);
});
