import { extensionKey, rawExpandedFolder, rawUploadKey, relativeToTenant, resolveTenantKey } from './tenant-keys';

describe('tenant keys', () => {
  it('lays every object out under the tenant prefix', () => {
    expect(extensionKey('t1', 'acme', 'ext.zip')).toBe('tenants/t1/extensions/acme/ext.zip');
    expect(rawUploadKey('t1', 'acme', 'raw.zip')).toBe('tenants/t1/raw/acme/uploads/raw.zip');
    expect(rawExpandedFolder('t1', 'acme')).toBe('tenants/t1/raw/acme/expanded/');
    expect(relativeToTenant('t1', 'tenants/t1/raw/acme/uploads/raw.zip')).toBe('raw/acme/uploads/raw.zip');
  });

  it('resolves relative keys inside the prefix only', () => {
    expect(resolveTenantKey('t1', 'raw/acme/expanded/a.csv')).toBe('tenants/t1/raw/acme/expanded/a.csv');
    expect(resolveTenantKey('t1', 'tenants/t2/raw/x.csv')).toBe('tenants/t1/tenants/t2/raw/x.csv');
    for (const bad of ['', '/tenants/t2/x', '../t2/x', 'raw/../../t2/x', 'raw/./x', 'raw//x', 'raw\\x', 'raw/x\u0000', 'a'.repeat(901)]) {
      expect(resolveTenantKey('t1', bad)).toBeNull();
    }
  });
});
