import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import { Client } from 'minio';
import { guardedLookup } from '../../outbound/host-policy';
import { BucketSource, ListedObject, SourceRefusal, unquoted } from './bucket-source';

export interface S3Location {
  /** The S3 API's URL; AWS's regional endpoint when absent. */
  endpoint?: string;
  region: string;
  bucket: string;
}

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Codes by which an S3 service says no (as opposed to being unreachable). */
const REFUSALS = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'NoSuchBucket',
  'AllAccessDisabled',
  'AccountProblem',
  'InvalidBucketName',
  'PermanentRedirect',
  'AuthorizationHeaderMalformed',
]);

export const awsEndpoint = (region: string) => `https://s3.${region}.amazonaws.com`;

/**
 * An S3-compatible bucket (AWS, OCI, GCS interoperability, MinIO, R2, s3rver) through the minio
 * client. Connections are guarded by the outbound host rule at connect time.
 */
export class S3Source implements BucketSource {
  readonly location: string;
  private readonly client: Client;

  constructor(
    private readonly where: S3Location,
    credentials: S3Credentials,
    allowPrivateHosts: boolean,
  ) {
    const url = new URL(where.endpoint ?? awsEndpoint(where.region));
    const useSSL = url.protocol === 'https:';
    const lookup = guardedLookup(allowPrivateHosts) as never;
    this.client = new Client({
      endPoint: url.hostname.replace(/^\[|\]$/g, ''),
      ...(url.port ? { port: Number(url.port) } : {}),
      useSSL,
      region: where.region,
      accessKey: credentials.accessKeyId,
      secretKey: credentials.secretAccessKey,
      // AWS takes the bucket in the host name; other services mostly in the path
      pathStyle: !url.hostname.endsWith('amazonaws.com'),
      transportAgent: useSSL ? new HttpsAgent({ keepAlive: true, lookup }) : new HttpAgent({ keepAlive: true, lookup }),
    });
    this.location = `s3://${where.bucket}`;
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    const stream = this.client.listObjectsV2(this.where.bucket, prefix, true);
    try {
      for await (const item of stream as AsyncIterable<{
        name?: string;
        etag?: string;
        size: number;
        lastModified: Date;
        prefix?: string;
      }>) {
        if (item.name === undefined) continue;
        yield { key: item.name, etag: unquoted(item.etag), size: item.size, lastModified: new Date(item.lastModified) };
      }
    } catch (error) {
      throw refusalOf(error);
    }
  }

  async read(key: string): Promise<Readable> {
    return this.client.getObject(this.where.bucket, key).catch((error: unknown) => {
      throw refusalOf(error);
    });
  }
}

function refusalOf(error: unknown): unknown {
  const code = (error as { code?: string }).code;
  if (code && REFUSALS.has(code)) return new SourceRefusal(`${code}: ${(error as Error).message}`);
  if (code === 'NoSuchKey' || code === 'NotFound') return new SourceRefusal(`the object is gone (${code})`);
  return error;
}
