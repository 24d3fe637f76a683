import { createHash, createHmac } from 'node:crypto';

export interface SigningKeys {
  /** The store's URL, as S3_ENDPOINT (path-style addressing). */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  region: string;
}

export interface PresignOptions {
  expiresSeconds: number;
  /** Signed: the store refuses a PUT of any other length. */
  contentLength?: number;
  now?: Date;
}

const escape = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest();

/**
 * A pre-signed PUT URL (AWS Signature Version 4, query form) that can sign `content-length`: the
 * minio client leaves that header out of what it signs, so a URL it makes takes a body of any size.
 * With the length signed, S3 and MinIO answer 403 to a PUT of another length.
 */
export function presignedPutUrl(keys: SigningKeys, bucket: string, key: string, options: PresignOptions): string {
  const endpoint = new URL(keys.endpoint);
  const stamp = (options.now ?? new Date())
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = stamp.slice(0, 8);
  const scope = `${day}/${keys.region}/s3/aws4_request`;
  const headers: [string, string][] = [
    ...(options.contentLength !== undefined ? [['content-length', String(options.contentLength)] as [string, string]] : []),
    ['host', endpoint.host],
  ];
  const signedHeaders = headers.map(([name]) => name).join(';');
  const path = `/${escape(bucket)}/${key.split('/').map(escape).join('/')}`;
  const query = [
    ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
    ['X-Amz-Credential', `${keys.accessKey}/${scope}`],
    ['X-Amz-Date', stamp],
    ['X-Amz-Expires', String(options.expiresSeconds)],
    ['X-Amz-SignedHeaders', signedHeaders],
  ]
    .map(([name, value]) => `${name}=${escape(value)}`)
    .join('&');
  const canonical = [
    'PUT',
    path,
    query,
    headers.map(([name, value]) => `${name}:${value}\n`).join(''),
    signedHeaders,
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', stamp, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  const signingKey = ['s3', 'aws4_request'].reduce((key, part) => hmac(key, part), hmac(hmac(`AWS4${keys.secretKey}`, day), keys.region));
  const signature = createHmac('sha256', signingKey).update(toSign).digest('hex');
  return `${endpoint.protocol}//${endpoint.host}${path}?${query}&X-Amz-Signature=${signature}`;
}
