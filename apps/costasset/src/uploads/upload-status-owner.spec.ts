import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { UPLOAD_STATUSES } from './schemas/upload.schema';

/**
 * UploadsRepository is the only code that changes an upload's status (issue 22). Outside
 * uploads/, no source file that touches uploads (imports their repository, schema or records)
 * may write a status literal, and none but tests may reach the collection itself (UploadRecords,
 * the model). Jobs, notifications and migrations have `status` fields of their own: files that do
 * not touch uploads are not scanned.
 */

const SOURCE = join(__dirname, '..');
const TOUCHES_UPLOADS = /from '[./]*(uploads\/)?(uploads\.repository|schemas\/upload\.schema|upload-records)'/;
const STATUS_WRITE = new RegExp(`\\bstatus:\\s*['"](${UPLOAD_STATUSES.join('|')})['"]`);
const COLLECTION_ACCESS = /from '[./]*(uploads\/)?upload-records'|\bUPLOAD_MODEL\b|\bUploadSchema\b/;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** `file: line` of each status written in a file that touches uploads. */
export function statusWrites(file: string, text: string): string[] {
  if (!TOUCHES_UPLOADS.test(text)) return [];
  return text
    .split('\n')
    .map((line, index) => (STATUS_WRITE.test(line) ? `${file}:${index + 1}: ${line.trim()}` : undefined))
    .filter((found): found is string => found !== undefined);
}

const outsideUploads = () =>
  sourceFiles(SOURCE)
    .map((path) => relative(SOURCE, path))
    .filter((file) => !file.startsWith('uploads/') && file !== 'metadata.ts');

describe('the owner of upload statuses', () => {
  it('finds a status written next to the uploads repository (the check itself)', () => {
    const text = [
      "import { UploadsRepository } from '../uploads/uploads.repository';",
      "records.updateOne(t, f, { $set: { status: 'cleaned' } });",
    ].join('\n');
    expect(statusWrites('x.ts', text)).toEqual(["x.ts:2: records.updateOne(t, f, { $set: { status: 'cleaned' } });"]);
    expect(statusWrites('job.ts', "jobs.updateOne(t, f, { $set: { status: 'failed' } });")).toEqual([]);
  });

  it('no code outside uploads/ writes an upload status', () => {
    const found = outsideUploads().flatMap((file) => statusWrites(file, readFileSync(join(SOURCE, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('no code outside uploads/ reaches the upload collection but through UploadsRepository', () => {
    const found = outsideUploads().filter((file) => COLLECTION_ACCESS.test(readFileSync(join(SOURCE, file), 'utf8')));
    expect(found).toEqual([]);
  });
});
