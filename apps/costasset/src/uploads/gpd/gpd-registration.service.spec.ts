import { GpdRegistrationService } from './gpd-registration.service';
import { UploadsRepository } from '../uploads.repository';
import type { UploadRecords } from '../upload-records';

function fakeUploads() {
  const records = new Map<string, Record<string, unknown>>();
  const repository = {
    findOne: async (_tenantId: string, filter: { refId: string }) => records.get(filter.refId) ?? null,
    create: async (tenantId: string, doc: Record<string, unknown>) => {
      records.set(doc.refId as string, { ...doc, tenantId });
      return doc;
    },
    updateOne: async (
      _tenantId: string,
      filter: { refId: string; status: { $in: string[] } },
      update: { $set: Record<string, unknown> },
    ) => {
      const found = records.get(filter.refId);
      if (!found || !filter.status.$in.includes(found.status as string)) return 0;
      Object.assign(found, update.$set);
      return 1;
    },
  };
  return { records, service: new GpdRegistrationService(new UploadsRepository(repository as unknown as UploadRecords)) };
}

const file = {
  refId: 'job-1',
  providerName: 'Acme',
  fileName: 'acme-extension.zip',
  objectKey: 'tenants/t/gpd/job-1/acme-extension.zip',
  sizeBytes: 10,
};

describe('GpdRegistrationService', () => {
  it('registers a stored file once per ref id, as uploaded', async () => {
    const { records, service } = fakeUploads();
    await service.registerStored('t', file);
    await service.registerStored('t', { ...file, sizeBytes: 12 });
    expect([...records.values()]).toEqual([
      {
        ...file,
        sizeBytes: 12,
        tenantId: 't',
        format: 'gpd',
        status: 'uploaded',
        rowsRead: 0,
        rowsWritten: 0,
        rowsRejected: 0,
        errors: [],
      },
    ]);
  });

  it('leaves an upload that is already being enriched alone', async () => {
    const { records, service } = fakeUploads();
    await service.registerStored('t', file);
    records.get('job-1')!.status = 'enriching';
    await service.registerStored('t', { ...file, sizeBytes: 99 });
    expect(records.get('job-1')).toMatchObject({ status: 'enriching', sizeBytes: 10 });
  });
});
