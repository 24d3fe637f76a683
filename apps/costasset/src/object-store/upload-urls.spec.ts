import { CostassetEnvironment } from '../costasset.environment';
import { gpdFileLimits, sizeRefusal, UploadUrls } from './upload-urls';

const env = Object.assign(new CostassetEnvironment(), {
  S3_ENDPOINT: 'http://127.0.0.1:9000',
  S3_ACCESS_KEY: 'AKIDEXAMPLE',
  S3_SECRET_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  S3_REGION: 'us-east-1',
  S3_BUCKET: 'corelite',
  GPD_UPLOAD_URL_TTL_SECONDS: 900,
  GPD_MAX_FILE_BYTES: 1000,
});

describe('UploadUrls', () => {
  it('binds a declared size into the signature, for GPD_UPLOAD_URL_TTL_SECONDS', () => {
    const { url, expiresAt } = new UploadUrls(env).put('tenants/default/gpd/1/aws.zip', 1234);
    const params = new URL(url).searchParams;
    expect(params.get('X-Amz-SignedHeaders')).toBe('content-length;host');
    expect(params.get('X-Amz-Expires')).toBe('900');
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(890_000);
  });

  it('signs only the host without a declared size', () => {
    const params = new URL(new UploadUrls(env).put('tenants/default/gpd/1/aws.zip').url).searchParams;
    expect(params.get('X-Amz-SignedHeaders')).toBe('host');
  });
});

describe('sizeRefusal', () => {
  const limits = gpdFileLimits({ declaredBytes: 500 }, env);

  it('admits the declared size within the limit, and any size within it when none was declared', () => {
    expect(sizeRefusal(500, limits)).toBeUndefined();
    expect(sizeRefusal(999, gpdFileLimits({}, env))).toBeUndefined();
  });

  it('names both sizes when the stored object is not the declared size', () => {
    expect(sizeRefusal(501, limits)).toBe('is 501 bytes, not the 500 bytes declared when the upload was created');
    expect(sizeRefusal(0, limits)).toContain('not the 500 bytes declared');
  });

  it('names the limit first when the stored object is over it', () => {
    expect(sizeRefusal(1001, limits)).toBe('is 1001 bytes, over GPD_MAX_FILE_BYTES (1000)');
  });
});
