import { Injectable } from '@nestjs/common';
import { CostassetEnvironment } from '../costasset.environment';
import { presignedPutUrl } from './presigned-put';

export interface UploadUrl {
  url: string;
  expiresAt: string;
}

/**
 * Pre-signed PUT URLs for uploads: valid GPD_UPLOAD_URL_TTL_SECONDS, and bound to the declared
 * size when the client declares one (the store refuses a body of another length).
 */
@Injectable()
export class UploadUrls {
  constructor(private readonly env: CostassetEnvironment) {}

  put(key: string, declaredBytes?: number): UploadUrl {
    const {
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY: accessKey,
      S3_SECRET_KEY: secretKey,
      S3_REGION: region,
      S3_BUCKET,
      GPD_UPLOAD_URL_TTL_SECONDS,
    } = this.env;
    const url = presignedPutUrl({ endpoint, accessKey, secretKey, region }, S3_BUCKET, key, {
      expiresSeconds: GPD_UPLOAD_URL_TTL_SECONDS,
      contentLength: declaredBytes,
    });
    return { url, expiresAt: new Date(Date.now() + GPD_UPLOAD_URL_TTL_SECONDS * 1000).toISOString() };
  }
}

/**
 * Why a stored object may not be read, or undefined: over the limit, or not the size its upload
 * declared (a store that does not check signed lengths, such as the local s3rver, lets it through).
 * Checked when the import is asked for and again by the job, before the first byte is read.
 */
export interface SizeLimits {
  declaredBytes?: number;
  maxBytes: number;
  /** The variable that sets `maxBytes`, named in the refusal. */
  limitName: string;
}

export function sizeRefusal(actualBytes: number, limits: SizeLimits): string | undefined {
  if (actualBytes > limits.maxBytes) return `is ${actualBytes} bytes, over ${limits.limitName} (${limits.maxBytes})`;
  if (limits.declaredBytes !== undefined && actualBytes !== limits.declaredBytes)
    return `is ${actualBytes} bytes, not the ${limits.declaredBytes} bytes declared when the upload was created`;
  return undefined;
}

/** sizeRefusal of one file of a FOCUS upload. */
export const focusPartRefusal = (actualBytes: number, part: { declaredBytes?: number }, env: CostassetEnvironment) =>
  sizeRefusal(actualBytes, { declaredBytes: part.declaredBytes, maxBytes: env.FOCUS_MAX_FILE_BYTES, limitName: 'FOCUS_MAX_FILE_BYTES' });

/** The limits of the object of a GPD upload: a GPD zip, or the one FOCUS file POST /v1/gpd was given. */
export const gpdFileLimits = (upload: { declaredBytes?: number }, env: CostassetEnvironment): SizeLimits => ({
  declaredBytes: upload.declaredBytes,
  maxBytes: env.GPD_MAX_FILE_BYTES,
  limitName: 'GPD_MAX_FILE_BYTES',
});
