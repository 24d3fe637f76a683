import { Decimal128 } from 'bson';
import { Schema, Types, type Model } from 'mongoose';
import { TenantRepository } from '@lib/persistence';
import { openTestDatabase, type TestDatabase } from './test-database';

/** Line items as the FOCUS import writes them: inserted by `insertBulk`, encoded by the driver or by the repository. */
interface Item {
  tenantId: string;
  sourceRow: number;
  [field: string]: unknown;
}

class ItemRepository extends TenantRepository<Item> {
  constructor(
    model: Model<Item>,
    protected override readonly encodesBulkInserts: boolean,
  ) {
    super(model);
  }
}

function item(row: number): Omit<Item, 'tenantId'> {
  return {
    billedCost: row % 3 === 0 ? 0 : 1.25 * row,
    cost: 0.1 + row * 1e-9,
    chargePeriodStart: new Date(Date.UTC(2024, 8, 1, row % 24)),
    chargeDescription: `usage ${row} ☁`,
    billingAccountName: '',
    tags: row % 2 ? [] : [{ key: 'env', value: 'prod' }],
    customColumns: [{ name: 'x_Note', value: 'café' }],
    sourceRow: row,
  };
}

describe('embedded-mongo: inserts encoded by the repository (OP_MSG document sequences)', () => {
  let db: TestDatabase;
  let encoded: ItemRepository;
  let driver: ItemRepository;

  beforeAll(async () => {
    db = await openTestDatabase('encoded_insert');
    const schema = () => new Schema<Item>({ tenantId: String, sourceRow: Number }, { strict: false });
    encoded = new ItemRepository(db.conn.model<Item>('EncodedItem', schema(), 'encoded_items'), true);
    driver = new ItemRepository(db.conn.model<Item>('DriverItem', schema(), 'driver_items'), false);
  });

  afterAll(async () => {
    await db.close();
  });

  it('stores the same documents as the driver, with the ids given to the inserted objects', async () => {
    const rows = Array.from({ length: 3_000 }, (_, row) => item(row));
    const copies = rows.map((row) => ({ ...row }));
    const insertMany = jest.spyOn(db.conn.model('EncodedItem').collection, 'insertMany');
    expect(await encoded.insertBulk('t1', rows)).toBe(3_000);
    expect(insertMany).not.toHaveBeenCalled();
    insertMany.mockRestore();
    expect(await driver.insertBulk('t1', copies)).toBe(3_000);
    const read = (repository: ItemRepository) => repository.find('t1', {}, { sort: { sourceRow: 1 } });
    const [mine, theirs] = await Promise.all([read(encoded), read(driver)]);
    const withoutId = (docs: Record<string, unknown>[]) => docs.map(({ _id, ...rest }) => rest);
    expect(withoutId(mine)).toEqual(withoutId(theirs));
    expect(mine.map((doc) => String(doc._id))).toEqual(rows.map((row) => String((row as { _id?: Types.ObjectId })._id)));
    expect(mine[1]).toMatchObject({ tenantId: 't1', billedCost: 1.25, chargePeriodStart: new Date(Date.UTC(2024, 8, 1, 1)) });
  });

  it('leaves a document it cannot encode to the driver', async () => {
    const rows = [{ ...item(1), exact: Decimal128.fromString('1.10') }, item(2)];
    expect(await encoded.insertBulk('t2', rows)).toBe(2);
    const stored = await encoded.find('t2', {}, { sort: { sourceRow: 1 } });
    expect(String(stored[0].exact)).toBe('1.10');
  });

  it('fails with the write errors of the command, after inserting the rest (unordered)', async () => {
    const first = item(1);
    await encoded.insertBulk('t3', [first]);
    const again = { ...item(2), _id: (first as { _id?: Types.ObjectId })._id };
    await expect(encoded.insertBulk('t3', [item(3), again, item(4)])).rejects.toMatchObject({
      code: 11000,
      writeErrors: [expect.objectContaining({ index: 1, code: 11000 })],
    });
    expect(await encoded.count('t3')).toBe(3);
  });
});
