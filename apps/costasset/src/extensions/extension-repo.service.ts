import { Injectable } from '@nestjs/common';
import { Client } from 'minio';
import { Problems } from '@lib/core';
import { CostassetEnvironment } from '../costasset.environment';
import { ExtensionValidation, PresignedUpload } from './dto/extension-files.dto';
import { readExtension } from './manifest/extension-archive';
import { CheckedManifest } from './manifest/extension-manifest';
import { sizeRefusal } from '../object-store/upload-urls';
import { DeclaredUploads } from './store/declared-uploads';
import { storeUnavailable } from './store/presign';
import { listObjects, statOrNull } from './store/stream-upload';
import { extensionFolder, extensionKey, relativeToTenant } from './tenant-keys';

export const extensionNotFound = (what = 'No such extension file') => Problems.notFound('EXTENSION_NOT_FOUND', what);

/** Extension zips: pre-signed upload, validation, and the one a flow uses. */
@Injectable()
export class ExtensionRepoService {
  constructor(
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
    private readonly declared: DeclaredUploads,
  ) {}

  async presign(tenantId: string, providerCode: string, fileName: string, declaredBytes?: number): Promise<PresignedUpload> {
    if (declaredBytes !== undefined && declaredBytes > this.env.EXTENSION_MAX_BYTES)
      throw Problems.payloadTooLarge(
        'EXTENSION_TOO_LARGE',
        `The declared size ${declaredBytes} is over EXTENSION_MAX_BYTES (${this.env.EXTENSION_MAX_BYTES})`,
      );
    const key = extensionKey(tenantId, providerCode, fileName);
    const signed = await this.declared.put(tenantId, key, declaredBytes);
    return { preSignedUrl: signed.url, key: relativeToTenant(tenantId, key), expiresAt: signed.expiresAt };
  }

  async validate(tenantId: string, providerCode: string, fileName: string): Promise<ExtensionValidation> {
    const checked = await this.check(tenantId, providerCode, extensionKey(tenantId, providerCode, fileName));
    return { valid: checked.errors.length === 0, errors: checked.errors };
  }

  /**
   * Reads and checks an extension zip; 404 when the object is not there, 400 when it is not the
   * size declared for its upload URL (over the limit, it is an invalid extension).
   */
  async check(tenantId: string, providerCode: string, key: string): Promise<CheckedManifest> {
    const stat = await statOrNull(this.store, this.env.S3_BUCKET, key).catch(() => {
      throw storeUnavailable();
    });
    if (!stat) throw extensionNotFound();
    const maxBytes = this.env.EXTENSION_MAX_BYTES;
    const refusal = sizeRefusal(stat.size, {
      declaredBytes: await this.declared.declaredBytes(tenantId, key),
      maxBytes,
      limitName: 'EXTENSION_MAX_BYTES',
    });
    if (refusal && stat.size <= maxBytes) throw Problems.badRequest('EXTENSION_SIZE_MISMATCH', `The extension ${refusal}`);
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
