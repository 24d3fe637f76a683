import { Injectable } from '@nestjs/common';
import { Client } from 'minio';
import type { ReadinessProbe } from '@lib/core';
import { CostassetEnvironment } from '../costasset.environment';

@Injectable()
export class ObjectStoreReadinessProbe implements ReadinessProbe {
  readonly name = 'objectStore';

  constructor(
    private readonly client: Client,
    private readonly env: CostassetEnvironment,
  ) {}

  async check(): Promise<void> {
    if (!(await this.client.bucketExists(this.env.S3_BUCKET))) throw new Error('bucket missing');
  }
}
