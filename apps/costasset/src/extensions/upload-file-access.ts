import { Injectable } from '@nestjs/common';
import type { Principal } from '@lib/auth';
import { UploadsRepository } from '../uploads/uploads.repository';
import { UploadAccess } from '../uploads/upload-access';

/** `gpd/<uploadId>/…`: the files of one GPD or FOCUS upload, relative to the tenant prefix. */
const UPLOAD_FILE = /^gpd\/([^/]+)\//;

/**
 * Which stored files a caller may list and download: a System Admin every file; anyone else the
 * files of the uploads it may see (extensions and raw provider data are System Admin work).
 */
@Injectable()
export class UploadFileAccess {
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly access: UploadAccess,
  ) {}

  /** The keys of `keys` (relative to the tenant prefix) the caller may read. */
  async visibleKeys(principal: Principal, keys: string[]): Promise<Set<string>> {
    if (principal.isSystemAdmin) return new Set(keys);
    const refIds = [...new Set(keys.map((key) => UPLOAD_FILE.exec(key)?.[1]).filter((refId): refId is string => refId !== undefined))];
    const stored = refIds.length ? await this.uploads.find(principal.tenantId, { refId: { $in: refIds } }) : [];
    const seen = new Set((await this.access.visible(principal, stored)).map((upload) => upload.refId));
    return new Set(keys.filter((key) => seen.has(UPLOAD_FILE.exec(key)?.[1] ?? '')));
  }
}
