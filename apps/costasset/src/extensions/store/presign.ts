import { Client } from 'minio';
import { Problems } from '@lib/http';

export interface PresignedPut {
  preSignedUrl: string;
  expiresAt: string;
}

export async function presignPut(store: Client, bucket: string, key: string, ttlSeconds: number): Promise<PresignedPut> {
  const preSignedUrl = await store.presignedPutObject(bucket, key, ttlSeconds).catch(() => {
    throw storeUnavailable();
  });
  return { preSignedUrl, expiresAt: new Date(Date.now() + ttlSeconds * 1000).toISOString() };
}

export const storeUnavailable = () => Problems.unavailable('OBJECT_STORE_UNAVAILABLE', 'The object store cannot be reached');
