/**
 * Zips a sample provider for a manual run against a stack:
 *   tsx samples/zip-sample.ts acme            → acme-extension.zip and acme-raw.zip in the current folder
 * The extension zip holds extension.json at its root; the raw zip holds the files of raw/.
 */
import { createWriteStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { ZipFile } from 'yazl';

async function zipFiles(files: { path: string; name: string }[], out: string): Promise<void> {
  const zip = new ZipFile();
  const output = createWriteStream(out);
  zip.outputStream.pipe(output);
  for (const file of files) zip.addFile(file.path, file.name);
  zip.end();
  await finished(output);
}

async function main(provider: string | undefined): Promise<void> {
  if (!provider || !/^[a-z0-9][a-z0-9_-]{0,63}$/.test(provider)) throw new Error('usage: tsx samples/zip-sample.ts <provider>');
  const folder = join(__dirname, provider);
  await zipFiles([{ path: join(folder, 'extension.json'), name: 'extension.json' }], `${provider}-extension.zip`);
  const raw = readdirSync(join(folder, 'raw')).map((name) => ({ path: join(folder, 'raw', name), name }));
  await zipFiles(raw, `${provider}-raw.zip`);
  process.stdout.write(`${provider}-extension.zip\n${provider}-raw.zip\n`);
}

main(process.argv[2]).catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
