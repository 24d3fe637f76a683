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
