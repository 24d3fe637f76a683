import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { CommonEnvironment, ObjectStoreEnvironment } from '@lib/config';
import { AuthzEnvironment } from '../apps/authz/src/authz.environment';
import { CostassetEnvironment } from '../apps/costasset/src/costasset.environment';

const root = resolve(__dirname, '..');
/** Files git tracks that are in the working tree (one deleted but not yet committed is not). */
const trackedFiles = (): string[] =>
  spawnSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
    .stdout.split('\n')
    .filter((file) => file && existsSync(join(root, file)));
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** Relative link targets of a markdown text (`[text](target)`), without anchors; URLs left out. */
function relativeLinks(markdown: string): string[] {
  const links = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
  return links
    .filter((link) => !/^[a-z]+:/i.test(link) && !link.startsWith('#') && !link.startsWith('/'))
    .map((link) => link.split('#')[0]);
}

describe('the documentation stands alone', () => {
  it('no file of the repository points outside it', () => {
    const outside = trackedFiles()
      .filter((file) => !file.endsWith('package-lock.json') && !file.endsWith('docs.spec.ts'))
      .filter((file) => /\.\.\/shared\/|\/work\/(shared|wt)\//.test(read(file)));
    expect(outside).toEqual([]);
  });

  it('every relative link of every markdown file resolves to a file of the repository', () => {
    const broken: string[] = [];
    for (const file of trackedFiles().filter((name) => name.endsWith('.md'))) {
      for (const link of relativeLinks(read(file))) {
        const target = resolve(root, dirname(file), link);
        if (relative(root, target).startsWith('..') || !existsSync(target)) broken.push(`${file} → ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the docs index lists every page of docs/', () => {
    const index = read('docs/README.md');
    const pages = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md') && name !== 'README.md');
    expect(pages.filter((page) => !index.includes(`](${page})`))).toEqual([]);
  });

  it('docs/configuration.md names every variable the services read', () => {
    const storage = getMetadataStorage();
    const variables = new Set(
      [CommonEnvironment, ObjectStoreEnvironment, AuthzEnvironment, CostassetEnvironment].flatMap((schema) =>
        storage.getTargetValidationMetadatas(schema, '', true, false).map((metadata) => metadata.propertyName),
      ),
    );
    const page = read('docs/configuration.md');
    expect([...variables].filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });
});

/** Files in the working tree that git tracks or would track: new files count, ignored ones (generated, built) do not. */
const workingFiles = (): string[] => [
  ...new Set(
    spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
      .stdout.split('\n')
      .filter((file) => file && existsSync(join(root, file))),
  ),
];
/** The code of the product, its tools, tests and benchmarks. */
const sourceFiles = () => workingFiles().filter((file) => /^(apps|libs|tools|test|bench)\/.+\.(ts|tsx|js|mjs)$/.test(file));
/** The pages a reader opens: docs/ and every README. */
const pageFiles = () => workingFiles().filter((file) => /^docs\/.+\.md$|(^|\/)README\.md$/.test(file));

/**
 * The forms in which the code once cited sections of a document the repository does not hold, so
 * that no reader could follow them: a section sign with a number ("§2.13", "contract §5"), a part
 * and section number ("A.1", "(B.10)"; not a version such as 1.2, nor a property path x.B.1), an
 * operation number ("op. 4", "operations 9 to 13") and "the spec". A rule is written in docs/ and a
 * comment links its section instead: docs/interface.md#idp-mappings.
 */
const CITATIONS: RegExp[] = [
  /§\s?\d/,
  /(?<![\w.])[AB]\.\d{1,2}(?!\w|\.\d)/,
  /\bop\.\s?\d/i,
  /\boperations?\s+\d{1,2}\b/i,
  /\bthe\s+spec\b(?!\s*files?\b|[.\-/])/i,
];
const cites = (text: string) => CITATIONS.some((pattern) => pattern.test(text));

/** The lines of a markdown text outside fenced code blocks, with their code spans left out (or only their backticks). */
function proseLines(markdown: string, codeSpans: 'drop' | 'keep' = 'drop'): string[] {
  let fence: string | null = null;
  const lines: string[] = [];
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && !fence) fence = marker;
    else if (marker && fence && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    else if (!fence) lines.push(line.replace(/`([^`]*)`/g, codeSpans === 'drop' ? '' : '$1'));
  }
  return lines;
}
/** The text a reader sees as prose: fenced code blocks and code spans left out (GitHub links nothing in them). */
const proseOf = (markdown: string) => proseLines(markdown).join('\n');

/** GitHub's anchor of a heading: the text (a link's label) lower-cased, punctuation dropped, each space a '-'. */
function anchorOf(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown page's headings (none from fenced code), a repeated one numbered as GitHub numbers it. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown, 'keep')) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const anchor = anchorOf(heading);
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  return anchors;
}

/**
 * Addresses a reader could follow out of the repository: links, autolinks and bare URLs (GitHub links those), except a local
 * corelite's.
 */
function outsideLinks(markdown: string): string[] {
  const prose = proseOf(markdown);
  const scheme = /^[a-z][a-z0-9+.-]*:/i;
  const targets = [
    ...[...prose.matchAll(/\]\(\s*<?([^\s)>]+)/g)].map((match) => match[1]),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?([^\s>]+)/gm)].map((match) => match[1]),
    ...[...prose.matchAll(/<([a-z][a-z0-9+.-]*:[^\s>]+)>/gi)].map((match) => match[1]),
    ...[...prose.matchAll(/\b(?:https?:\/\/|www\.)[^\s<>()[\]]+/gi)].map((match) => match[0]),
  ].filter((target) => scheme.test(target) || target.startsWith('www.'));
  return [...new Set(targets)].filter((target) => !/^https?:\/\/(127\.0\.0\.1|localhost)([:/?#]|$)/i.test(target));
}

describe('every rule the code cites is in docs/', () => {
  it('the citation forms are caught, and nothing legitimate is', () => {
    const citations = [
      'spec §2.13',
      'Spec A.1 op. 4',
      '§7 item 4',
      'B.10 housekeeping',
      '(spec B.4)',
      'operations 9 to 13',
      'as the spec gives',
    ];
    const legitimate = [
      'FOCUS 1.0–1.3',
      'node 22.11.0',
      'v1.2',
      'A.1.2',
      'row.B.1',
      'the spec file',
      'the spec.ts',
      'op.kind',
      '100 operations',
    ];
    expect(citations.filter((text) => !cites(text))).toEqual([]);
    expect(legitimate.filter(cites)).toEqual([]);
  });

  it('no source file, page of docs/ or README cites a section of a document the repository does not hold', () => {
    const found = [...sourceFiles(), ...pageFiles()]
      // This file is left out: it spells the forms it looks for, in CITATIONS and in the test above.
      .filter((file) => file !== 'tools/docs.spec.ts')
      .flatMap((file) =>
        read(file)
          .split('\n')
          .map((line, index) => ({ file, line, index })),
      )
      .filter(({ line }) => cites(line))
      .map(({ file, line, index }) => `${file}:${index + 1}: ${line.trim()}`);
    expect(found).toEqual([]);
  });

  it('every docs/<page>.md#<anchor> the code names is a page of docs/ and a heading of it', () => {
    const broken: string[] = [];
    for (const file of sourceFiles()) {
      for (const [reference, page, anchor] of read(file).matchAll(/\bdocs\/([\w.-]+\.md)(?:#([\w-]+))?/g)) {
        if (!existsSync(join(root, 'docs', page))) broken.push(`${file}: ${reference} (no such page)`);
        else if (anchor && !anchorsOf(read(`docs/${page}`)).has(anchor)) broken.push(`${file}: ${reference} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('anchors are those GitHub gives headings, fenced code aside', () => {
    const page = [
      '# The interface',
      '### Extensions and raw data (admin, except `test`, `list` and `download`)',
      '#### The directory entry `_ldap_config`',
      '### Cost file `C_<account>_<timestamp>.csv`',
      '## Tokens',
      '## Tokens',
      '```text',
      '# not a heading',
      '```',
    ].join('\n');
    expect([...anchorsOf(page)]).toEqual([
      'the-interface',
      'extensions-and-raw-data-admin-except-test-list-and-download',
      'the-directory-entry-_ldap_config',
      'cost-file-c_account_timestampcsv',
      'tokens',
      'tokens-1',
    ]);
  });

  it('every #anchor a page links is a heading of the page it names', () => {
    const broken: string[] = [];
    for (const file of pageFiles()) {
      for (const [, target] of proseOf(read(file)).matchAll(/\]\(([^)\s]*#[^)\s]+)\)/g)) {
        const [path, anchor] = target.split('#');
        if (/^[a-z][a-z0-9+.-]*:/i.test(path) || !(path === '' || path.endsWith('.md'))) continue;
        const page = path === '' ? file : join(dirname(file), path);
        if (existsSync(join(root, page)) && !anchorsOf(read(page)).has(anchor)) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('no page of docs/ and no README links outside the repository', () => {
    const outside = pageFiles().flatMap((file) => outsideLinks(read(file)).map((link) => `${file} → ${link}`));
    expect(outside).toEqual([]);
  });

  it('the outside-link check sees links, autolinks and bare URLs, but not code or a local corelite', () => {
    const page = [
      'the [JSONata](https://jsonata.org) package, <https://example.org/a>, see www.example.net or http://example.com/x.',
      '[ref]: mailto:someone@example.org',
      'open http://127.0.0.1:8080/docs/ or [the console](http://localhost:8080/); `https://finops.example.com` is an example',
      '```text',
      'curl https://example.org/in-a-fence',
      '```',
    ].join('\n');
    expect(outsideLinks(page)).toEqual([
      'https://jsonata.org',
      'mailto:someone@example.org',
      'https://example.org/a',
      'www.example.net',
      'http://example.com/x.',
    ]);
  });
});
