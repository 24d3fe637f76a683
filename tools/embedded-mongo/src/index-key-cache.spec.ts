import fc from 'fast-check';
import { resolveCollation } from './collation';
import { IndexState, type IndexSpec } from './index-state';

const value = fc.oneof(
  fc.constantFrom('a', 'A', 'b', '', 'é'),
  fc.constantFrom(0, -0, 1, 1.5, Number.NaN),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);
const documentArbitrary = fc.record({ a: value, b: value }).map(({ a, b }) => {
  const doc: Record<string, unknown> = {};
  if (a !== undefined) doc.a = a;
  if (b !== undefined) doc.b = b;
  return doc;
});

describe('IndexKeyCache', () => {
  it('gives every document the key that encoding its values gives, whatever came before', () => {
    const specs: IndexSpec[] = [
      { v: 2, key: { a: 1, b: -1 }, name: 'a_1_b_-1' },
      { v: 2, key: { a: 1 }, name: 'a_1_sparse', sparse: true },
      { v: 2, key: { b: 1, a: 1 }, name: 'b_1_a_1_collation', collation: { locale: 'en', strength: 2 } },
    ];
    fc.assert(
      fc.property(fc.array(documentArbitrary, { maxLength: 40 }), (docs) => {
        for (const spec of specs) {
          const collation = resolveCollation(spec.collation);
          const cached = new IndexState(spec, collation, null);
          for (const doc of docs) {
            // A new index has remembered nothing: its keys are encoded.
            expect(cached.keysFor(doc, 'id')).toEqual(new IndexState(spec, collation, null).keysFor(doc, 'id'));
          }
        }
      }),
    );
  });
});
