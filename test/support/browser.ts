import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { BROWSER_PROGRAMS } from '../../tools/stack/browser';
import { ensureInstalled, requireProgram } from '../../tools/stack/system-packages';

/**
 * Debian's Chromium (installed by the stack's package step; never downloaded), headless, with the
 * flags that keep it off the network, driven by playwright-core (which starts it with a fresh,
 * temporary user-data-dir of its own). One browser per test file; each test opens a fresh context
 * (its own storage, so its own session).
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  browser: Browser;
  /** A page in a fresh context; `enforceCsp` keeps the pages' Content-Security-Policy in force (bypassed by default, for axe-core). */
  newPage(options?: { enforceCsp?: boolean }): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  await ensureInstalled(BROWSER_PROGRAMS, (line) => process.stdout.write(`${line}\n`));
  const browser = await chromium.launch({ executablePath: requireProgram('chromium'), args: FLAGS, headless: true });
  return {
    browser,
    // bypassCSP: the gateway's Content-Security-Policy would refuse axe-core's injected script
    newPage: async (options = {}) =>
      (
        await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1, bypassCSP: !options.enforceCsp })
      ).newPage(),
    close: () => browser.close(),
  };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core in the page: the serious and critical violations (WCAG 2 A/AA and best practices). */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
  // runs in the page (a string: this file is compiled without the DOM's types)
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(tags)} } }).then((result) => result.violations)`,
  )) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes
          .map((node) => node.target.join(' '))
          .slice(0, 3)
          .join('; ')})`,
    );
}

/** Fails the test with the page's serious and critical accessibility violations, under the page's `name`. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  expect({ page: name, violations: await seriousAccessibilityViolations(page) }).toEqual({ page: name, violations: [] });
}

/** An attribute of every element a locator matches, in order. */
export async function attributesOf(locator: Locator, name: string): Promise<(string | null)[]> {
  const values: (string | null)[] = [];
  for (let index = 0; index < (await locator.count()); index++) values.push(await locator.nth(index).getAttribute(name));
  return values;
}
