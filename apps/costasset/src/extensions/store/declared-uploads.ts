import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { UploadUrl, UploadUrls } from '../../object-store/upload-urls';
import { DeclaredUpload } from '../schemas/declared-upload.schema';

@Injectable()
export class DeclaredUploadRepository extends TenantRepository<DeclaredUpload> {
  constructor(@InjectModel(DeclaredUpload.name) model: Model<DeclaredUpload>) {
    super(model);
  }
}

/** Upload URLs of extension and raw-data zips, and the size each one was declared with. */
@Injectable()
export class DeclaredUploads {
  constructor(
    private readonly declared: DeclaredUploadRepository,
    private readonly urls: UploadUrls,
  ) {}

  /** A URL for `key` that takes `declaredBytes` only when given; the declaration replaces the previous one of the key. */
  async put(tenantId: string, key: string, declaredBytes?: number): Promise<UploadUrl> {
    if (declaredBytes === undefined) await this.declared.deleteOne(tenantId, { key });
    else await this.declared.updateOne(tenantId, { key }, { $set: { declaredBytes } }, { upsert: true });
    return this.urls.put(key, declaredBytes);
  }

  async declaredBytes(tenantId: string, key: string): Promise<number | undefined> {
    return (await this.declared.findOne(tenantId, { key }))?.declaredBytes;
  }
}
