import { Injectable } from '@nestjs/common';
import { Client } from 'minio';
import { Problems } from '@lib/http';
import { CostassetEnvironment } from '../costasset.environment';
import { ExtensionValidation, PresignedUpload } from './dto/extension-files.dto';
import { readExtension } from './manifest/extension-archive';
import { CheckedManifest } from './manifest/extension-manifest';
import { presignPut, storeUnavailable } from './store/presign';
import { listObjects, statOrNull } from './store/stream-upload';
import { extensionFolder, extensionKey, relativeToTenant } from './tenant-keys';

export const extensionNotFound = (what = 'No such extension file') => Problems.notFound('EXTENSION_NOT_FOUND', what);

/** Extension zips: pre-signed upload, validation, and the one a flow uses. */
@Injectable()
export class ExtensionRepoService {
  constructor(
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
  ) {}

  async presign(tenantId: string, providerCode: string, fileName: string): Promise<PresignedUpload> {
    const key = extensionKey(tenantId, providerCode, fileName);
    const signed = await presignPut(this.store, this.env.S3_BUCKET, key, this.env.GPD_UPLOAD_URL_TTL_SECONDS);
    return { preSignedUrl: signed.preSignedUrl, key: relativeToTenant(tenantId, key), expiresAt: signed.expiresAt };
  }

  async validate(tenantId: string, providerCode: string, fileName: string): Promise<ExtensionValidation> {
    const checked = await this.check(tenantId, providerCode, extensionKey(tenantId, providerCode, fileName));
    return { valid: checked.errors.length === 0, errors: checked.errors };
  }

  /** Reads and checks an extension zip; 404 when the object is not there. */
  async check(tenantId: string, providerCode: string, key: string): Promise<CheckedManifest> {
    const stat = await statOrNull(this.store, this.env.S3_BUCKET, key).catch(() => {
      throw storeUnavailable();
    });
    if (!stat) throw extensionNotFound();
    return readExtension(this.store, this.env.S3_BUCKET, key, stat.size, providerCode, this.env.EXTENSION_MAX_BYTES);
  }

  /** The provider's most recently uploaded extension zip, which a flow uses. */
  async latestKey(tenantId: string, providerCode: string): Promise<string | undefined> {
    const found = await listObjects(this.store, this.env.S3_BUCKET, extensionFolder(tenantId, providerCode)).catch(() => {
      throw storeUnavailable();
    });
    const zips = found.filter(
      (object) => object.key.endsWith('.zip') && !object.key.slice(extensionFolder(tenantId, providerCode).length).includes('/'),
    );
    zips.sort((a, b) => b.lastModified.getTime() - a.lastModified.getTime() || b.key.localeCompare(a.key));
    return zips[0]?.key;
  }
}
