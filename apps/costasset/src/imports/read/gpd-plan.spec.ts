import type { Client } from 'minio';
import { PermanentJobError } from '../../jobs/job-handler';
import { GpdArchive } from './gpd-plan';

/** A store whose object has `size` bytes; reading it is a test failure (the size check comes first). */
const storeOf = (size: number) => {
  const read = jest.fn(() => Promise.reject(new Error('read before the size was checked')));
  const store = { statObject: jest.fn(() => Promise.resolve({ size })), getPartialObject: read, getObject: read } as unknown as Client;
  return { store, read };
};
const limits = { declaredBytes: 100, maxBytes: 1000, limitName: 'GPD_MAX_FILE_BYTES' };

describe('GpdArchive.open', () => {
  it('fails the job for good, naming both sizes, when the stored zip is not the declared size', async () => {
    const { store, read } = storeOf(101);
    const opened = GpdArchive.open(store, 'corelite', 'tenants/default/gpd/1/aws.zip', limits);
    await expect(opened).rejects.toBeInstanceOf(PermanentJobError);
    await expect(opened).rejects.toThrow('the file is 101 bytes, not the 100 bytes declared when the upload was created');
    expect(read).not.toHaveBeenCalled();
  });

  it('fails the job for good when the stored zip is over the limit', async () => {
    const { store, read } = storeOf(1001);
    await expect(GpdArchive.open(store, 'corelite', 'k', { maxBytes: 1000, limitName: 'GPD_MAX_FILE_BYTES' })).rejects.toThrow(
      'the file is 1001 bytes, over GPD_MAX_FILE_BYTES (1000)',
    );
    expect(read).not.toHaveBeenCalled();
  });
});
