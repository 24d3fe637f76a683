import { splitTags } from './tags';

describe('splitTags', () => {
  it('splits group:key and group/key at the first separator; plain keys go to the default group', () => {
    expect(splitTags('{"team:owner":"alpha","env/stage":"prod","costcenter":42,"a:b:c":"x","flag":true}')).toEqual([
      { group: 'team', key: 'owner', value: 'alpha' },
      { group: 'env', key: 'stage', value: 'prod' },
      { group: 'default', key: 'costcenter', value: '42' },
      { group: 'a', key: 'b:c', value: 'x' },
      { group: 'default', key: 'flag', value: 'true' },
    ]);
  });

  it('treats a leading separator as part of a plain key, and empty input as no tags', () => {
    expect(splitTags('{":odd":"v"}')).toEqual([{ group: 'default', key: ':odd', value: 'v' }]);
    expect(splitTags('')).toEqual([]);
    expect(splitTags(undefined)).toEqual([]);
  });

  it('refuses anything but a JSON object of scalars', () => {
    expect(() => splitTags('[1,2]')).toThrow('JSON object');
    expect(() => splitTags('{"a":{"b":1}}')).toThrow('scalar');
    expect(() => splitTags('{nope')).toThrow();
  });
});
