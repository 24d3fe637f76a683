import { dimensionRead, tagRead } from '../rollups/rollup-fields';
import { mergeByReads, PieceRow } from './piece-rows';

const tag = (key: string, value: string) => ({ group: 'default', key, value });
const row = (id: Record<string, unknown>, cost: number, lineItems: number): PieceRow => ({ _id: id, cost, lineItems });

describe('mergeByReads (pieces of cost keep what is read of them)', () => {
  it('keeps the period, the plain fields and the tags and dimensions read, and sums the rows then alike', () => {
    const rows = [
      row(
        { period: '202401', category: 'Compute', tags: [tag('env', 'prod'), tag('team', 'a')], dimensions: { team: 'a', cc: 'x' } },
        1.5,
        2,
      ),
      row({ period: '202401', category: 'Compute', tags: [tag('env', 'dev'), tag('team', 'a')], dimensions: { team: 'a', cc: 'y' } }, 2, 1),
      row({ period: '202401', category: 'Storage', tags: [tag('env', 'dev')], dimensions: { team: 'a', cc: 'y' } }, 4, 3),
      row({ period: '202402', category: 'Compute', tags: [], dimensions: { team: 'a', cc: 'y' } }, 8, 1),
    ];
    const reads = new Set([tagRead('default', 'team'), dimensionRead('team')]);
    expect(mergeByReads(rows, ['category'], reads)).toEqual([
      row({ period: '202401', category: 'Compute', tags: [tag('team', 'a')], dimensions: { team: 'a' } }, 3.5, 3),
      row({ period: '202401', category: 'Storage', tags: [], dimensions: { team: 'a' } }, 4, 3),
      row({ period: '202402', category: 'Compute', tags: [], dimensions: { team: 'a' } }, 8, 1),
    ]);
  });

  it('leaves out the fields grouped only to classify line items (the rules’ inputs) and keeps missing allocation fields missing', () => {
    const rows = [row({ period: '202401', billingAccountId: '1' }, 1, 1), row({ period: '202401', billingAccountId: '2' }, 2, 1)];
    expect(mergeByReads(rows, [], new Set())).toEqual([row({ period: '202401' }, 3, 2)]);
  });
});
