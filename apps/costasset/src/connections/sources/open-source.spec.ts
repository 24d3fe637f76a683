import { SourceRefusal } from './bucket-source';
import { hostOf, openSource } from './open-source';
import { S3Source } from './s3-source';

describe('opening a connection source', () => {
  const s3 = (endpoint?: string) => ({ type: 's3' as const, source: { endpoint, region: 'eu-west-1', bucket: 'billing', prefix: '' } });

  it("reaches AWS's regional endpoint when no endpoint is given", () => {
    expect(hostOf(s3())).toBe('s3.eu-west-1.amazonaws.com');
    expect(hostOf({ type: 'azure-blob', source: { accountUrl: 'https://acme.blob.core.windows.net', container: 'c', prefix: '' } })).toBe(
      'acme.blob.core.windows.net',
    );
  });

  it.each(['http://127.0.0.1:9000', 'http://10.1.2.3', 'http://[::1]:9000', 'http://169.254.169.254', 'http://localhost:9000'])(
    'refuses %s unless the deployment allows private hosts',
    async (endpoint) => {
      await expect(openSource(s3(endpoint), { accessKeyId: 'a', secretAccessKey: 'b' }, false)).rejects.toThrow(SourceRefusal);
      await expect(openSource(s3(endpoint), { accessKeyId: 'a', secretAccessKey: 'b' }, false)).rejects.toThrow(/private or loopback/);
      await expect(openSource(s3(endpoint), { accessKeyId: 'a', secretAccessKey: 'b' }, true)).resolves.toBeInstanceOf(S3Source);
    },
  );

  it('refuses an Azure account URL on a private address too', async () => {
    const azure = {
      type: 'azure-blob' as const,
      source: { accountUrl: 'http://127.0.0.1:10000/devstoreaccount1', container: 'c', prefix: '' },
    };
    await expect(openSource(azure, { sasToken: 'sv=x' }, false)).rejects.toThrow(/private or loopback/);
  });
});
