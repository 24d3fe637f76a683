import { joinTags, splitTags } from './tags';

describe('splitTags', () => {
  it('splits group:key and group/key at the first separator; plain keys go to the default group', () => {
    expect(splitTags('{"team:owner":"alpha","env/stage":"prod","costcenter":42,"a:b:c":"x","flag":true}')).toEqual([
      { group: 'team', key: 'owner', value: 'alpha', name: 'team:owner' },
      { group: 'env', key: 'stage', value: 'prod', name: 'env/stage' },
      { group: 'default', key: 'costcenter', value: '42', type: 'number' },
      { group: 'a', key: 'b:c', value: 'x', name: 'a:b:c' },
      { group: 'default', key: 'flag', value: 'true', type: 'boolean' },
    ]);
  });

  it('treats a leading separator as part of a plain key, and empty input as no tags', () => {
    expect(splitTags('{":odd":"v"}')).toEqual([{ group: 'default', key: ':odd', value: 'v' }]);
    expect(splitTags('')).toEqual([]);
    expect(splitTags(undefined)).toEqual([]);
  });

  it('reads a Parquet MAP (object or Map) as well as JSON text', () => {
    expect(splitTags({ env: 'prod' })).toEqual([{ group: 'default', key: 'env', value: 'prod' }]);
    expect(splitTags(new Map([['aws:createdBy', 'me']]))).toEqual([{ group: 'aws', key: 'createdBy', value: 'me', name: 'aws:createdBy' }]);
  });

  it('gives the original object back through joinTags, keys without values and leading spaces included', () => {
    const original = { ' spaced': 'x', 'team/owner': 'alpha', 'ms-resource-usage': 'azure', flag: true, n: 1.5, gone: null };
    expect(joinTags(splitTags(JSON.stringify(original)))).toEqual(original);
  });

  it('refuses anything but a JSON object of scalars', () => {
    expect(() => splitTags('[1,2]')).toThrow('JSON object');
    expect(() => splitTags('{"a":{"b":1}}')).toThrow('scalar');
    expect(() => splitTags('{nope')).toThrow();
  });
});
