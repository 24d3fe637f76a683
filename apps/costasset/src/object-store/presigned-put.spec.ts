import { Client } from 'minio';
import { presignedPutUrl } from './presigned-put';

const keys = {
  endpoint: 'http://127.0.0.1:9000',
  accessKey: 'AKIDEXAMPLE',
  secretKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  region: 'us-east-1',
};
const now = new Date('2026-01-02T03:04:05.678Z');

describe('presignedPutUrl', () => {
  it('signs as the minio client does when no length is declared', async () => {
    const client = new Client({
      endPoint: '127.0.0.1',
      port: 9000,
      useSSL: false,
      accessKey: keys.accessKey,
      secretKey: keys.secretKey,
      region: keys.region,
      pathStyle: true,
    });
    const key = 'default/focus/0f1e/0/part 2 été+(1).parquet';
    const theirs = await client.presignedUrl('PUT', 'corelite', key, 600, {}, now);
    expect(presignedPutUrl(keys, 'corelite', key, { expiresSeconds: 600, now })).toBe(theirs);
  });

  it('signs the declared content length, so another length does not match the signature', () => {
    const url = new URL(presignedPutUrl(keys, 'corelite', 'a/b.zip', { expiresSeconds: 600, contentLength: 1234, now }));
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;host');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('600');
    const other = new URL(presignedPutUrl(keys, 'corelite', 'a/b.zip', { expiresSeconds: 600, contentLength: 1235, now }));
    expect(other.searchParams.get('X-Amz-Signature')).not.toBe(url.searchParams.get('X-Amz-Signature'));
  });
});
