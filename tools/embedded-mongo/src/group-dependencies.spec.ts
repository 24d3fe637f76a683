import { groupDependencies } from './group-dependencies';

const names = (group: unknown) => {
  const fields = groupDependencies(group);
  return fields ? [...fields.names].sort() : null;
};

describe('groupDependencies (what a $group reads of its input)', () => {
  it('names the top-level fields of every path its key and accumulators read, variables and literals aside', () => {
    expect(names({ _id: { p: '$providerName', d: '$dimensions.team' }, cost: { $sum: '$cost' }, n: { $sum: 1 } })).toEqual([
      'cost',
      'dimensions',
      'providerName',
    ]);
    expect(names({ _id: { $ifNull: ['$tags', []] }, c: { $max: { $literal: '$currency' } } })).toEqual(['tags']);
    expect(names({ _id: { $filter: { input: '$tags', as: 't', cond: { $eq: ['$$t.key', 'env'] } } }, n: { $count: {} } })).toEqual([
      'tags',
    ]);
    expect(names({ _id: null })).toEqual([]);
  });

  it('gives up (whole documents) when the reads cannot be told', () => {
    expect(names({ _id: null, docs: { $push: '$$ROOT' } })).toBeNull();
    expect(names({ _id: '$$CURRENT.a' })).toBeNull();
    expect(names({ _id: { $getField: 'a' } })).toBeNull();
    expect(names({ _id: null, top: { $top: { sortBy: { a: 1 }, output: '$b' } } })).toBeNull();
    expect(names({ _id: null, n: 1 })).toBeNull();
  });
});
