import { validateLayout } from './gpd-layout';

const C = '202410/acc1/C_acc1_20241101T000000Z.csv';

describe('GPD layout', () => {
  it('accepts metadata, cost files and asset-account folders with A_ and U_ files', () => {
    const layout = validateLayout([
      'provider_metadata.yml',
      '202410/',
      '202410/acc1/',
      C,
      '202410/acc1/sub1/A_sub1.csv',
      '202410/acc1/sub1/U_sub1.csv',
    ]);
    expect(layout.errors).toEqual([]);
    expect(layout.files.map((file) => [file.kind, file.period, file.billingAccountId, file.assetAccountId])).toEqual([
      ['cost', '202410', 'acc1', undefined],
      ['asset', '202410', 'acc1', 'sub1'],
      ['utilization', '202410', 'acc1', 'sub1'],
    ]);
  });

  it.each([
    [[C], 'missing provider_metadata.yml'],
    [['provider_metadata.yml', C, '202410/acc2/'], 'empty account folder'],
    [['provider_metadata.yml', C, '202410/acc1/sub1/'], 'empty account folder'],
    [['provider_metadata.yml', C, 'notes.txt'], 'unexpected file'],
    [['provider_metadata.yml', C, '202410/acc1/readme.md'], 'unexpected file'],
    [['provider_metadata.yml', '202413/acc1/C_acc1_1.csv'], 'period folder'],
    [['provider_metadata.yml', C, '202410/acc1/C_acc1_2.csv'], 'exactly one C_'],
    [['provider_metadata.yml', C, '202410/acc1/sub1/U_sub1.csv'], 'exactly one A_'],
    [['provider_metadata.yml', C, '../evil.csv'], 'unsafe'],
    [['provider_metadata.yml'], 'no data'],
  ])('refuses %j', (names, reason) => {
    expect(
      validateLayout(names)
        .errors.map((error) => error.reason)
        .join(' | '),
    ).toContain(reason);
  });
});
