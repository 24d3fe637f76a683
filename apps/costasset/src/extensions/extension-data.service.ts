import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { Client } from 'minio';
import { Problems } from '@lib/core';
import type { Principal } from '@lib/auth';
import { CostassetEnvironment } from '../costasset.environment';
import { UploadFileAccess } from './upload-file-access';
import { DataDeleted, DataItem, StoredFile } from './dto/extension-data.dto';
import { storeUnavailable } from './store/presign';
import { listObjects, removeKeys, statOrNull } from './store/stream-upload';
import { relativeToTenant, resolveTenantKey, tenantPrefix } from './tenant-keys';

/** The same answer for a key elsewhere and a key that does not exist: nothing about other tenants leaks. */
const objectNotFound = () => Problems.notFound('OBJECT_NOT_FOUND', 'No such file in this tenant');

export interface Download {
  stream: Readable;
  size: number;
  fileName: string;
}

/** The tenant's files in the object store, addressed by keys relative to its prefix. */
@Injectable()
export class ExtensionDataService {
  constructor(
    private readonly store: Client,
    private readonly env: CostassetEnvironment,
    private readonly files: UploadFileAccess,
  ) {}

  async list(principal: Principal): Promise<StoredFile[]> {
    const { tenantId } = principal;
    const found = await listObjects(this.store, this.env.S3_BUCKET, tenantPrefix(tenantId)).catch(() => {
      throw storeUnavailable();
    });
    const visible = await this.files.visibleKeys(
      principal,
      found.map((object) => relativeToTenant(tenantId, object.key)),
    );
    return found
      .filter((object) => visible.has(relativeToTenant(tenantId, object.key)))
      .map((object) => ({
        key: relativeToTenant(tenantId, object.key),
        Size: String(object.size),
        lastModified: new Date(object.lastModified).toISOString(),
      }));
  }

  /** Refuses the whole request when one key is outside the tenant; counts only objects that existed. */
  async delete(tenantId: string, items: DataItem[]): Promise<DataDeleted> {
    const keys = [...new Set(items.map((item) => resolveTenantKey(tenantId, item.key)))];
    if (keys.some((key) => key === null)) throw objectNotFound();
    const existing: string[] = [];
    try {
      for (const key of keys as string[]) if (await statOrNull(this.store, this.env.S3_BUCKET, key)) existing.push(key);
      await removeKeys(this.store, this.env.S3_BUCKET, existing);
    } catch {
      throw storeUnavailable();
    }
    return { status: 'deleted', count: existing.length };
  }

  async download(principal: Principal, relativeKey: string): Promise<Download> {
    const key = resolveTenantKey(principal.tenantId, relativeKey);
    if (!key || !(await this.files.visibleKeys(principal, [relativeKey])).has(relativeKey)) throw objectNotFound();
    const stat = await statOrNull(this.store, this.env.S3_BUCKET, key).catch(() => {
      throw storeUnavailable();
    });
    if (!stat) throw objectNotFound();
    const stream = await this.store.getObject(this.env.S3_BUCKET, key).catch(() => {
      throw storeUnavailable();
    });
    return { stream, size: stat.size, fileName: key.slice(key.lastIndexOf('/') + 1) };
  }
}
