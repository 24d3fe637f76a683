import { Aggregator } from 'mingo';
import { compileExpression } from '../expressions';
import { ProviderIdentity } from './provider-identity';

const rows = [
  { providerName: 'aws', cost: 1 },
  { providerName: 'AWS', cost: 2 },
  { providerName: 'Amazon Web Services', cost: 4 },
  { providerName: 'azure', cost: 8 },
];
const byProvider = (identity: ProviderIdentity, filter: Record<string, unknown> = {}) =>
  Object.fromEntries(
    (
      new Aggregator(
        identity.pipeline([{ $match: filter }, { $group: { _id: { p: { $ifNull: ['$providerName', null] } }, cost: { $sum: '$cost' } } }]),
      ).run(rows) as Array<{ _id: { p: string }; cost: number }>
    ).map((row) => [row._id.p, row.cost]),
  );

describe('ProviderIdentity', () => {
  const present = rows.map((row) => row.providerName);

  it('makes names that differ by case one provider, shown by its lower-case spelling', () => {
    const identity = new ProviderIdentity([], present);
    expect(identity.merges).toBe(true);
    expect(byProvider(identity)).toEqual({ aws: 3, 'Amazon Web Services': 4, azure: 8 });
    expect(byProvider(identity, compileExpression("providerName == 'AWS'"))).toEqual({ aws: 3 });
    expect(new ProviderIdentity([], ['Azure', 'AZURE']).canonical('azure')).toBe('AZURE');
    expect(byProvider(identity, compileExpression("providerName != 'Aws'"))).toEqual({ 'Amazon Web Services': 4, azure: 8 });
  });

  it('makes a declared provider and its aliases one, under the declared name, in filters and groupings', () => {
    const identity = new ProviderIdentity([{ name: 'aws', aliases: ['Amazon Web Services'] }], present);
    expect(byProvider(identity)).toEqual({ aws: 7, azure: 8 });
    expect(byProvider(identity, compileExpression("providerName == 'AMAZON WEB SERVICES' || providerName == 'nope'"))).toEqual({ aws: 7 });
    expect(identity.variants('aws')).toEqual(['AWS', 'Amazon Web Services', 'aws']);
  });

  it('leaves pipelines alone when every provider has one spelling', () => {
    const identity = new ProviderIdentity([], ['aws', 'azure']);
    expect(identity.merges).toBe(false);
    const pipeline = [{ $match: { providerName: { $eq: 'aws' } } }];
    expect(identity.pipeline(pipeline)).toEqual(pipeline);
  });
});
