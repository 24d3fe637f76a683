import { costUpdate, locationUpdate } from './line-item-mapping';

describe('remediation mapping', () => {
  it('sets mapped location fields and removes the unmapped ones', () => {
    expect(
      locationUpdate({
        providerName: 'aws',
        providerRegionCode: 'eu-west-1',
        location: 'Dublin',
        country: 'IE',
        region: 'Europe',
        state: '',
      }),
    ).toEqual({
      $set: { location: 'Dublin', country: 'IE', locationRegion: 'Europe' },
      $unset: { state: '', subregion: '', dataCenter: '' },
    });
    expect(locationUpdate(undefined)).toEqual({
      $unset: { location: '', country: '', state: '', subregion: '', locationRegion: '', dataCenter: '' },
    });
  });

  it('converts billedCost with the rate, unrounded', () => {
    expect(costUpdate(0.5, 'EUR')).toEqual([{ $set: { cost: { $multiply: ['$billedCost', 0.5] }, currency: 'EUR' } }]);
  });
});
