import { Global, Module } from '@nestjs/common';
import { Client } from 'minio';
import { CostassetEnvironment } from '../costasset.environment';
import { ObjectStoreReadinessProbe } from './object-store-readiness.probe';
import { UploadUrls } from './upload-urls';

export function createObjectStoreClient(
  env: Pick<CostassetEnvironment, 'S3_ENDPOINT' | 'S3_ACCESS_KEY' | 'S3_SECRET_KEY' | 'S3_REGION'>,
): Client {
  const url = new URL(env.S3_ENDPOINT);
  return new Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    useSSL: url.protocol === 'https:',
    accessKey: env.S3_ACCESS_KEY,
    secretKey: env.S3_SECRET_KEY,
    region: env.S3_REGION,
    pathStyle: true,
  });
}

@Global()
@Module({
  providers: [
    { provide: Client, inject: [CostassetEnvironment], useFactory: createObjectStoreClient },
    ObjectStoreReadinessProbe,
    UploadUrls,
  ],
  exports: [Client, ObjectStoreReadinessProbe, UploadUrls],
})
export class ObjectStoreModule {}
