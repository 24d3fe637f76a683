import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import request from 'supertest';
import { REPO_ROOT } from '../../tools/stack/settings';
import { launchBrowser } from '../support/browser';
import { zipOf } from '../support/gpd-fixtures';
import { ingestGpd } from '../support/ingest';
import { Platform, startPlatform } from '../support/platform';
import { configValues } from '../support/config-values';

const doc = (name: string) => readFileSync(join(REPO_ROOT, 'docs', name), 'utf8');

/** The fenced blocks of a markdown text, with their info string and the text just before them. */
function fencedBlocks(markdown: string): { info: string; body: string; before: string }[] {
  const blocks: { info: string; body: string; before: string }[] = [];
  const fence = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (let match = fence.exec(markdown); match; match = fence.exec(markdown)) {
    const preceding = markdown.slice(0, match.index).trimEnd().split('\n');
    blocks.push({ info: match[1].trim(), body: match[2], before: preceding[preceding.length - 1] ?? '' });
  }
  return blocks;
}

function runBash(script: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('docs: the commands and examples of docs/ work as written', () => {
  let platform: Platform;

  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(() => platform.close());

  it("runs the tutorial's bash blocks, in order, against a gateway (only BASE changed)", async () => {
    const blocks = fencedBlocks(doc('tutorial.md')).filter((block) => block.info === 'bash');
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    const script = blocks.map((block) => block.body).join('\n');
    const baseLine = 'BASE=http://127.0.0.1:8080';
    expect(script.split('\n')).toContain(baseLine);
    const result = await runBash(
      `set -euo pipefail\n${script.replace(baseLine, `BASE=${platform.gateway.url}`)}`,
      { ...process.env, NO_COLOR: '1' },
      150_000,
    );
    if (result.code !== 0) throw new Error(`the tutorial failed (exit ${result.code}):\n${result.output.slice(-4000)}`);
    expect(result.output).toContain('"is_system_admin":true');
    expect(result.output).toMatch(/job [0-9a-f-]{36}: succeeded/);
    // 2,000 cost rows, and the 50 assets and 50 utilization rows of each account and period
    expect(result.output).toContain('"rowsRead":2400,"rowsWritten":2400,"rowsRejected":0');
    expect(result.output).toContain('"unit":"bytes"');
    expect(result.output).toContain('"templateId":"cost-by-service-category"');
    expect(result.output).toContain('{"key":{"category":"Compute"}');
    expect(result.output).toContain('"name":"AWS tutorial"');
  }, 180_000);

  it('enriches the worked example of gpd-format.md exactly as the page says', async () => {
    const admin = await platform.token({ sub: 'admin' });
    const config = configValues(platform, admin);
    await config('INSTANCE_CURRENCIES', ['USD', 'EUR']);
    await config('DEFAULT_CURRENCY', 'USD');
    await config('CURRENCY_EXCHANGE_RATES', { EUR: 1.08 });

    // the zip: the layout block names the paths, the blocks after "`<file name>`:" hold the contents
    const page = doc('gpd-format.md');
    const example = fencedBlocks(page.slice(page.indexOf('## A worked example'), page.indexOf('## The generator')));
    const paths = example[0].body.trim().split('\n');
    const contents = new Map(example.slice(1).map((block) => [/^`([^`]+)`:$/.exec(block.before)?.[1], block.body]));
    const entries = Object.fromEntries(paths.map((path) => [path, contents.get(basename(path)) ?? null]));
    expect(Object.values(entries).every((content) => typeof content === 'string')).toBe(true);

    const job = await ingestGpd(platform, admin, 'aws', await zipOf(entries));
    expect(job).toMatchObject({ status: 'completed_with_errors', result: { rowsRead: 5, rowsWritten: 4, rowsRejected: 1 } });
    expect((job.result?.errors as { line: number; reason: string }[])[0]).toMatchObject({
      line: 4,
      reason: 'ChargePeriodStart 2024-11-01T00:00:00.000Z is outside the period 202410 of its folder',
    });

    const items = (
      await request(platform.costasset.url)
        .get('/api/costasset/v1/costLineItems')
        .query({ billingAccountId: '123456789012' })
        .set('corelite-token', admin)
        .expect(200)
    ).body.items;
    expect(items).toHaveLength(2);
    const byResource = Object.fromEntries(items.map((item: { resourceId: string }) => [item.resourceId, item]));
    expect(byResource['i-0abc']).toMatchObject({
      cost: 12.4,
      currency: 'USD',
      billingAccountId: '123456789012',
      assetAccountId: 'dev-team',
      period: '202410',
    });
    expect(byResource['i-0abc'].tags).toEqual(
      expect.arrayContaining([
        { group: 'team', key: 'owner', value: 'platform', name: 'team:owner' },
        { group: 'default', key: 'env', value: 'dev' },
      ]),
    );
    expect(byResource['bucket-logs']).toMatchObject({ billedCost: 0.92, billingCurrency: 'EUR' });
    // 0.92 × 1.08, never rounded: the nearest double, as the page says
    expect(byResource['bucket-logs'].cost).toBe(0.92 * 1.08);
    expect(byResource['bucket-logs'].cost).toBeCloseTo(0.9936, 12);
  });

  it.each(['authz', 'costasset'] as const)(
    'shows the API reference of %s in Chromium under its own Content-Security-Policy: no page error, every operation',
    async (service) => {
      const document = (await request(platform.gateway.url).get(`/docs/${service}/openapi.json`).expect(200)).body as {
        paths: Record<string, Record<string, unknown>>;
      };
      const operations = Object.values(document.paths).flatMap((item) => Object.keys(item).filter((key) => HTTP_METHODS.has(key))).length;
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage({ enforceCsp: true });
        const problems: string[] = [];
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        page.on('console', (message) => void (message.type() === 'error' && problems.push(`console: ${message.text()}`)));
        const response = await page.goto(`${platform.gateway.url}/docs/${service}`);
        expect(response?.headers()['content-security-policy']).toMatch(/connect-src 'self';/);
        await page.waitForSelector('.opblock', { timeout: 20_000 }).catch(() => undefined);
        expect(problems).toEqual([]);
        expect(await page.locator('.opblock').count()).toBe(operations);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
