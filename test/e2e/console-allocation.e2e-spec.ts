import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { REPO_ROOT } from '../../tools/stack/settings';
import { attributesOf, expectAccessible, launchBrowser, TestBrowser } from '../support/browser';
import { seedLineItems, SeedItem } from '../support/line-item-seed';
import { teamMembers } from '../support/members';
import { eventually, Platform, startPlatform } from '../support/platform';

const API = '/api/costasset/v1';
const SCREENSHOTS = join(REPO_ROOT, '.stack', 'test', 'screenshots-allocation');

/** The console rounds money for display as Intl does (en-US); the test formats the API's amounts the same way. */
const money = (amount: number, currency: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: 2 }).format(amount);
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

const tag = (group: string, key: string, value: string) => ({ group, key, value });
const item = (cost: number, tags: SeedItem['tags'], extra: Partial<SeedItem> = {}): SeedItem => ({
  providerName: 'aws',
  billingAccountId: 'acct-1',
  category: 'Compute',
  serviceName: 'EC2',
  region: 'eu-west-1',
  period: '202403',
  chargePeriodStart: new Date('2024-03-05T10:00:00Z'),
  cost,
  tags,
  ...extra,
});

// as test/e2e/costasset-allocation.e2e-spec.ts: three spellings of one environment tag, a team tag in two groups, rows without tags
const ITEMS: SeedItem[] = [
  item(100, [tag('default', 'env', 'prod'), tag('team', 'owner', 'alpha')]),
  item(40, [tag('default', 'Env', 'prod'), tag('team', 'owner', 'beta')]),
  item(25, [tag('default', 'environment', 'production')], { serviceName: 'S3', category: 'Storage' }),
  item(10, [tag('default', 'env', 'dev'), tag('ops', 'owner', 'alpha')]),
  item(7.5, [], { providerName: 'azure', billingAccountId: 'acct-2' }),
  item(2.25, [tag('team', 'owner', 'alpha')], { period: '202402', chargePeriodStart: new Date('2024-02-10T10:00:00Z') }),
];

const PRODUCTION = "tag('default', 'env' == 'prod') || tag('default', 'Env' == 'prod') || tag('default', 'environment' == 'production')";
const DEVELOPMENT = "tag('default', 'env' == 'dev')";
/** A single `=`: the API answers INVALID_EXPRESSION with the position. */
const DEVELOPMENT_TYPO = "tag('default', 'env' = 'dev')";

interface Series {
  key: Record<string, string | null>;
  total: number;
}

/**
 * The console's Allocation page in a real browser (Debian's Chromium through playwright-core),
 * served by the gateway from the built console: tag keys with their coverage activated, a
 * dimension written with its live preview (a rule that does not compile marked where the API says),
 * saved (and a conflicting save resolved), its history, the rollups followed until they are up to
 * date, and the explorer grouped by the new dimension.
 */
describe('web console: allocation', () => {
  let platform: Platform;
  let browser: TestBrowser;
  let gateway: string;
  let admin: string;
  let currency: string;
  const api = () => request(platform.gateway.url);

  const signInLink = async (sub: string) => `${gateway}/#token=${await platform.token({ sub }, 3600)}`;

  async function screenshot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  /** The page's badge says the rollups hold the current settings (it asks again every second until they do). */
  async function upToDate(page: Page): Promise<void> {
    const badge = page.locator('[data-testid="rollups-state"][data-current="true"]');
    await badge.waitFor({ timeout: 30_000 });
    expect(await badge.textContent()).toBe('rollups up to date');
    expect((await api().get(`${API}/allocation`).set('corelite-token', admin).expect(200)).body.rollups.current).toBe(true);
  }

  beforeAll(async () => {
    if (!existsSync(join(REPO_ROOT, 'dist', 'console', 'index.html'))) {
      const build = spawnSync('npm', ['run', '-s', 'build:console'], { cwd: REPO_ROOT, stdio: 'inherit' });
      if (build.status !== 0) throw new Error('the console did not build');
    }
    rmSync(SCREENSHOTS, { recursive: true, force: true });
    mkdirSync(SCREENSHOTS, { recursive: true });
    [browser, platform] = await Promise.all([launchBrowser(), startPlatform()]);
    gateway = platform.gateway.url;
    admin = await platform.token({ sub: 'admin' }, 3600);
    await seedLineItems(platform, 'default', ITEMS);
    currency = (await api().get(`${API}/currency/defaultCurrency`).set('corelite-token', admin).expect(200)).body.defaultCurrency;
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('lists the observed tag keys with their coverage, activates one and follows the rollups until they are up to date', async () => {
    const page = await browser.newPage();
    await page.goto(await signInLink('admin'));
    await page.getByRole('link', { name: 'Allocation', exact: true }).click();
    const table = page.locator('[data-testid="tag-keys"]');
    await table.waitFor();

    // every key the API observes in the latest period, with its coverage as a percentage and its cost
    const observed = (await api().get(`${API}/allocation/tagKeys`).set('corelite-token', admin).expect(200)).body as {
      from: string;
      totalCost: number;
      items: { group: string; key: string; coverage: number; cost: number; lineItems: number }[];
    };
    expect(observed.from).toBe('202403');
    expect(await table.locator('tbody tr').count()).toBe(observed.items.length);
    for (const entry of observed.items) {
      const row = table.locator(`tr[data-key="${entry.group}:${entry.key}"]`);
      expect(await row.locator(`[data-testid="coverage-${entry.group}:${entry.key}"]`).textContent()).toBe(percent(entry.coverage));
      expect(await row.locator('td').nth(1).textContent()).toBe(money(entry.cost, currency));
      expect(await row.locator('td').nth(2).textContent()).toBe(String(entry.lineItems));
      expect(await row.getAttribute('data-active')).toBe('false');
    }
    expect(await table.locator('tr[data-key="team:owner"] [data-testid="coverage-team:owner"]').textContent()).toBe(percent(140 / 182.5));
    expect(await page.textContent('[data-testid="tag-keys-range"]')).toContain('March 2024');
    await upToDate(page);
    await expectAccessible(page, 'allocation: tag keys');
    await screenshot(page, '01-tag-keys');

    await page.getByRole('button', { name: 'Activate team:owner' }).click();
    await table.locator('tr[data-key="team:owner"][data-active="true"]').waitFor();
    expect(await page.getByRole('button', { name: 'Deactivate team:owner' }).count()).toBe(1);
    const settings = (await api().get(`${API}/allocation`).set('corelite-token', admin).expect(200)).body;
    expect(settings.tagKeys).toEqual([expect.objectContaining({ group: 'team', key: 'owner', activatedBy: 'admin' })]);
    await upToDate(page);
    const byTeam = await api()
      .get(`${API}/costs`)
      .query({ groupBy: 'tag:team:owner', from: '202402', to: '202403' })
      .set('corelite-token', admin)
      .expect(200);
    expect(byTeam.body.source).toBe('rollup');
    await screenshot(page, '02-tag-key-activated');
    await page.context().close();
  }, 120_000);

  it('writes a dimension previewed as typed, marks a rule that does not compile, saves, resolves a conflict, shows history', async () => {
    const page = await browser.newPage();
    await page.goto(await signInLink('admin'));
    await page.getByRole('link', { name: 'Allocation', exact: true }).click();
    await page.getByRole('link', { name: 'Dimensions', exact: true }).click();
    await page.locator('[data-testid="empty-state"]', { hasText: 'No dimensions yet' }).waitFor();
    await page.getByRole('button', { name: 'New dimension' }).click();

    // an empty draft: everything is unallocated
    const unallocated = page.locator('[data-testid="preview-unallocated"]');
    await unallocated.waitFor();
    expect(await page.textContent('[data-testid="preview-total"]')).toBe(money(182.5, currency));

    await page.fill('#dimension-name', 'environment');
    await page.fill('#rule-expr-0', PRODUCTION);
    await page.fill('#rule-value-0', 'production');
    const preview = (rules: { expr: string; value: string }[]) =>
      api().post(`${API}/allocation/dimensions/preview`).set('corelite-token', admin).send({ rules });
    const first = (await preview([{ expr: PRODUCTION, value: 'production' }]).expect(200)).body;
    await eventually(async () => expect(await page.textContent('[data-testid="rule-cost-0"]')).toBe(money(first.rules[0].cost, currency)));
    expect(first.rules[0]).toEqual({ rule: 0, value: 'production', cost: 165, lineItems: 3 });
    expect(await page.textContent('[data-testid="rule-items-0"]')).toContain('3 line items');
    await eventually(async () => expect(await unallocated.textContent()).toBe(money(first.unallocated.cost, currency)));

    // a second rule with a typo: marked on that rule at the API's position, and the dimension cannot be saved
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.fill('#rule-value-1', 'development');
    await page.fill('#rule-expr-1', DEVELOPMENT_TYPO);
    const marked = page.locator('[data-testid="rule-error"][data-rule="1"]');
    await marked.waitFor();
    const problem = (
      await preview([
        { expr: PRODUCTION, value: 'production' },
        { expr: DEVELOPMENT_TYPO, value: 'development' },
      ]).expect(400)
    ).body;
    expect(problem).toMatchObject({ code: 'INVALID_EXPRESSION', rule: 1 });
    expect(Number(await marked.getAttribute('data-position'))).toBe(problem.position);
    expect(await marked.locator('mark').textContent()).toBe(DEVELOPMENT_TYPO[problem.position]);
    expect(await marked.textContent()).toContain(problem.errors[0].messages[0]);
    expect(await page.getAttribute('#rule-expr-1', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#rule-expr-0', 'aria-invalid')).toBe('false');
    expect(await page.getByRole('button', { name: 'Create dimension' }).isDisabled()).toBe(true);
    await screenshot(page, '03-dimension-invalid-rule');

    // fixed: each rule's share, and what stays unallocated, as the API previews them
    await page.fill('#rule-expr-1', DEVELOPMENT);
    await marked.waitFor({ state: 'detached' });
    const rules = [
      { expr: PRODUCTION, value: 'production' },
      { expr: DEVELOPMENT, value: 'development' },
    ];
    const both = (await preview(rules).expect(200)).body;
    await eventually(async () => expect(await page.textContent('[data-testid="rule-cost-1"]')).toBe(money(both.rules[1].cost, currency)));
    expect(both.unallocated).toEqual({ value: 'unallocated', unallocated: true, cost: 7.5, lineItems: 1 });
    await eventually(async () => expect(await unallocated.textContent()).toBe(money(7.5, currency)));
    expect(await page.textContent('[data-testid="preview-unallocated-detail"]')).toBe(`${percent(7.5 / 182.5)} · 1 line item`);
    expect(await attributesOf(page.locator('[data-testid="preview-values"] tbody tr'), 'data-value')).toEqual(
      both.values.map((value: { value: string }) => value.value),
    );

    // moved up and back down: the rows follow
    await page.getByRole('button', { name: 'Move rule 2 up' }).click();
    expect(await page.inputValue('#rule-value-0')).toBe('development');
    await page.getByRole('button', { name: 'Move rule 1 down' }).click();
    expect(await page.inputValue('#rule-value-0')).toBe('production');
    await page.locator('.preview-updating').waitFor({ state: 'detached' });
    await expectAccessible(page, 'allocation: dimension editor');
    await screenshot(page, '04-dimension-preview');

    await page.getByRole('button', { name: 'Create dimension' }).click();
    expect(await page.locator('[data-testid="dimension-saved"]').textContent()).toContain('Saved environment (version 1)');
    const row = page.locator('[data-testid="dimension-list"] tr[data-dimension="environment"]');
    await row.waitFor();
    const created = (await api().get(`${API}/allocation/dimensions/environment`).set('corelite-token', admin).expect(200)).body;
    expect(created).toMatchObject({ name: 'environment', version: 1, defaultValue: 'unallocated', rules, updatedBy: 'admin' });
    await upToDate(page);

    // someone saves it while it is open here: the save says so, and "Keep my rules" saves over it
    await row.getByRole('button', { name: 'Edit environment' }).click();
    await page.fill('#dimension-description', 'Where a resource runs');
    await api()
      .put(`${API}/allocation/dimensions/environment`)
      .set('corelite-token', admin)
      .send({ rules, description: 'Changed elsewhere', version: 1 })
      .expect(200);
    await page.getByRole('button', { name: 'Save dimension' }).click();
    const conflict = page.locator('[data-testid="dimension-conflict"]');
    await conflict.waitFor();
    expect(await conflict.textContent()).toContain('its version is now 2');
    await page.getByRole('button', { name: 'Keep my rules' }).click();
    await conflict.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save dimension' }).click();
    expect(await page.locator('[data-testid="dimension-saved"]').textContent()).toContain('Saved environment (version 3)');
    expect((await api().get(`${API}/allocation/dimensions/environment`).set('corelite-token', admin).expect(200)).body).toMatchObject({
      version: 3,
      description: 'Where a resource runs',
      rules,
    });

    // its history, newest first
    await row.getByRole('button', { name: 'History of environment' }).click();
    const history = page.locator('[data-testid="dimension-history"] tbody tr');
    await eventually(async () => {
      expect(await attributesOf(history, 'data-version')).toEqual(['3', '2', '1']);
      expect(await attributesOf(history, 'data-change')).toEqual(['updated', 'updated', 'created']);
    });
    await upToDate(page);
    await expectAccessible(page, 'allocation: dimensions and history');
    await screenshot(page, '05-dimension-history');
    await page.context().close();
  }, 120_000);

  it('offers the dimension and the activated tag key as groupings of the explorer, and shows the new series', async () => {
    const page = await browser.newPage();
    await page.goto(await signInLink('admin'));
    await page.goto(`${gateway}/explorer?groupBy=providerName&from=202402&to=202403`);
    await page.waitForSelector('[data-testid="explorer-table"]');
    const choices = page.locator('#group-0 optgroup[label="Allocation"] option');
    await eventually(async () => expect(await attributesOf(choices, 'value')).toEqual(['dimension:environment', 'tag:team:owner']));

    await page.selectOption('#group-0', 'dimension:environment');
    await page.waitForURL(/groupBy=dimension%3Aenvironment/);
    const costs = (
      await api()
        .get(`${API}/costs`)
        .query({ groupBy: 'dimension:environment', from: '202402', to: '202403' })
        .set('corelite-token', admin)
        .expect(200)
    ).body as { source: string; total: number; series: Series[] };
    expect(costs.source).toBe('rollup');
    const totals = Object.fromEntries(costs.series.map((series) => [series.key['dimension:environment'], series.total]));
    expect(totals).toEqual({ production: 165, development: 10, unallocated: 9.75 });
    const table = page.locator('[data-testid="explorer-table"]');
    await eventually(async () =>
      expect(await table.locator('tbody th').allTextContents()).toEqual(costs.series.map((series) => series.key['dimension:environment'])),
    );
    expect(await table.locator('thead th').first().textContent()).toContain('Dimension environment');
    for (const series of costs.series) {
      const cells = table.locator('tbody tr', { has: page.locator('th', { hasText: series.key['dimension:environment']! }) }).locator('td');
      expect(await cells.last().textContent()).toBe(money(series.total, currency));
    }
    expect(await page.textContent('[data-testid="explorer-sum"]')).toBe(money(costs.total, currency));
    await expectAccessible(page, 'explorer by dimension');
    await screenshot(page, '06-explorer-by-dimension');
    await page.context().close();
  }, 120_000);

  it('writes a split rule (a cycle marked on its rule), draws where the cost goes, shows the showback and its CSV', async () => {
    const team = [
      { expr: "tag('team', 'owner' == 'alpha')", value: 'alpha' },
      { expr: "tag('team', 'owner' == 'beta')", value: 'beta' },
      { expr: "providerName == 'azure'", value: 'shared' },
    ];
    await api().post(`${API}/allocation/dimensions`).set('corelite-token', admin).send({ name: 'team', rules: team }).expect(201);
    const page = await browser.newPage();
    await page.goto(await signInLink('admin'));
    await page.getByRole('link', { name: 'Allocation', exact: true }).click();
    await page.getByRole('link', { name: 'Split rules', exact: true }).click();
    await upToDate(page);
    await page.locator('[data-testid="empty-state"]', { hasText: 'No split rules yet' }).waitFor();
    expect(await page.textContent('[data-testid="split-editor"]')).toContain('Order matters');

    // a proportional split of the shared team to alpha and… shared: a cycle, marked on the rule
    await page.getByRole('button', { name: 'Add split rule' }).click();
    expect(await attributesOf(page.locator('#split-0-target option'), 'value')).toEqual([
      'dimension:environment',
      'dimension:team',
      'tag:team:owner',
    ]);
    await page.fill('#split-0-name', 'Shared platform');
    await page.fill('#split-0-source', "dimension('team') == 'shared'");
    await page.selectOption('#split-0-target', 'dimension:team');
    expect(await page.inputValue('#split-0-method')).toBe('proportional');
    await page.fill('#split-0-value-0', 'alpha');
    await page.getByRole('button', { name: 'Add value' }).click();
    await page.fill('#split-0-value-1', 'shared');
    await page.getByRole('button', { name: 'Save split rules' }).click();
    const problem = page.locator('[data-testid="split-0"] [data-testid="split-problem"][data-field="source"]');
    await problem.waitFor();
    expect(await problem.textContent()).toContain("split 'Shared platform' would take back what 'Shared platform' gives to shared");
    expect(await page.getAttribute('#split-0-source', 'aria-invalid')).toBe('true');
    expect((await api().get(`${API}/allocation/splitRules`).set('corelite-token', admin).expect(200)).body.rules).toEqual([]);

    // fixed percentages show their sum; back to proportional, to alpha and beta: saved
    await page.selectOption('#split-0-method', 'fixed');
    await page.fill('#split-0-percent-0', '60');
    await page.fill('#split-0-percent-1', '30');
    expect(await page.textContent('[data-testid="split-0-percent-sum"]')).toBe('Sum: 90% (must be 100%)');
    await page.selectOption('#split-0-method', 'proportional');
    await page.fill('#split-0-value-1', 'beta');
    await problem.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save split rules' }).click();
    expect(await page.locator('[data-testid="split-saved"]').textContent()).toContain('Saved 1 split rule');
    const rules = (await api().get(`${API}/allocation/splitRules`).set('corelite-token', admin).expect(200)).body;
    expect(rules.rules).toEqual([
      {
        name: 'Shared platform',
        source: "dimension('team') == 'shared'",
        target: 'dimension:team',
        method: 'proportional',
        targets: [{ value: 'alpha' }, { value: 'beta' }],
      },
    ]);

    // the diagram of the latest month: the rule's source on the left, each share on the right, as the API splits them
    const statement = (
      await api()
        .get(`${API}/allocation/showback`)
        .query({ dimension: 'dimension:team', period: '202403' })
        .set('corelite-token', admin)
        .expect(200)
    ).body as {
      period: string;
      currency: string;
      total: number;
      lines: { value: string; unallocated: boolean; direct: number; shared: number; total: number }[];
      splits: { name: string; source: number; shares: { value: string; amount: number }[] }[];
    };
    expect(statement.splits).toEqual([
      {
        name: 'Shared platform',
        source: 7.5,
        shares: [
          { value: 'alpha', amount: 5.357142857 },
          { value: 'beta', amount: 2.142857143 },
        ],
      },
    ]);
    const flow = page.locator('[data-testid="split-flow"]');
    await flow.waitFor();
    expect(await flow.getAttribute('data-period')).toBe('202403');
    const [split] = statement.splits;
    const source = flow.locator(`[data-testid="flow-source"][data-rule="${split.name}"]`);
    expect(await source.locator('.flow-name').textContent()).toBe(split.name);
    expect(await source.locator('.flow-amount').textContent()).toBe(money(split.source, currency));
    expect(await attributesOf(flow.locator('[data-testid="flow-band"]'), 'data-value')).toEqual(['alpha', 'beta']);
    for (const share of split.shares) {
      const band = flow.locator(`[data-testid="flow-band"][data-value="${share.value}"]`);
      expect(await band.locator('text').textContent()).toBe(money(share.amount, currency));
      expect(Number(await band.getAttribute('data-amount'))).toBe(share.amount);
      expect(await flow.locator(`[data-testid="flow-target"][data-value="${share.value}"] .flow-amount`).textContent()).toBe(
        money(share.amount, currency),
      );
    }
    await expectAccessible(page, 'allocation: split rules');
    await screenshot(page, '07-split-rules');

    // the showback statement of the team dimension: one row per value, the unallocated one marked, totals
    await page.getByRole('link', { name: 'Showback', exact: true }).click();
    await page.locator('[data-testid="showback"]').waitFor();
    await page.selectOption('#showback-dimension', 'dimension:team');
    await page.waitForURL(/dimension=dimension%3Ateam/);
    const table = page.locator('[data-testid="showback"]');
    await eventually(async () =>
      expect(await attributesOf(table.locator('tbody tr'), 'data-value')).toEqual(statement.lines.map((line) => line.value)),
    );
    expect(Object.fromEntries(statement.lines.map((line) => [line.value, [line.direct, line.shared, line.total]]))).toEqual({
      alpha: [100, 5.357142857, 105.357142857],
      beta: [40, 2.142857143, 42.142857143],
      unallocated: [35, 0, 35],
    });
    for (const line of statement.lines) {
      const row = table.locator(`tbody tr[data-value="${line.value}"]`);
      const cells = row.locator('td');
      expect(await cells.nth(0).textContent()).toBe(money(line.direct, currency));
      expect(await cells.nth(1).textContent()).toContain(money(line.shared, currency));
      expect(await cells.nth(2).textContent()).toBe(money(line.total, currency));
      expect(await row.getAttribute('data-unallocated')).toBe(line.unallocated ? 'true' : null);
    }
    expect(await table.locator('tbody tr[data-unallocated="true"] th').textContent()).toBe('unallocated unallocated');
    expect(await page.textContent('[data-testid="showback-total"]')).toBe(money(statement.total, currency));
    expect(await page.textContent('[data-testid="showback-shared"]')).toBe(money(7.5, currency));
    expect(await page.textContent('[data-testid="showback-period"]')).toContain('March 2024');
    expect(await page.locator('[data-testid="split-flow"] [data-testid="flow-band"]').count()).toBe(2);

    // the CSV and FOCUS CSV downloads: the API's own statement, with the session's token
    const csv = await api()
      .get(`${API}/allocation/showback`)
      .query({ dimension: 'dimension:team', period: '202403', format: 'csv' })
      .set('corelite-token', admin)
      .expect(200);
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV', exact: true }).click(),
    ]);
    expect(file.suggestedFilename()).toMatch(/\.csv$/);
    expect(readFileSync((await file.path())!, 'utf8')).toBe(csv.text);
    const [focus] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download FOCUS CSV' }).click()]);
    const focusText = readFileSync((await focus.path())!, 'utf8');
    expect(focusText.split('\n')[0]).toContain('x_AllocationValue');
    expect(focusText).toContain('shared,Shared platform');
    await expectAccessible(page, 'allocation: showback');
    await screenshot(page, '08-showback');
    await page.context().close();
  }, 120_000);

  it('keeps Allocation from members: not in their navigation, the page says so, the explorer keeps its own groupings', async () => {
    const { dora } = await teamMembers(platform, { code: 'ALLOCATION-VIEW' }, ['dora']);
    const page = await browser.newPage();
    await page.goto(`${gateway}/#token=${dora}`);
    await page.waitForSelector('[data-testid="user-id"]');
    expect(await page.getByRole('link', { name: 'Allocation', exact: true }).count()).toBe(0);
    await page.goto(`${gateway}/allocation`);
    await page.locator('[data-testid="empty-state"]', { hasText: 'Allocation is for System Admins' }).waitFor();
    await api().get(`${API}/allocation`).set('corelite-token', dora).expect(403);
    await page.goto(`${gateway}/explorer`);
    await page.waitForSelector('#group-0');
    expect(await page.locator('#group-0 optgroup').count()).toBe(0);
    expect(await page.locator('#group-0 option[value="tag"]').count()).toBe(1);
    await page.context().close();
  }, 60_000);
});
