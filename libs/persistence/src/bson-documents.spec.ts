import { Binary, Decimal128, deserialize, Long, ObjectId, serialize } from 'bson';
import { Types } from 'mongoose';
import { DocumentBytes, encodeDocuments } from './bson-documents';
import { InsertBatch } from './insert-batch';

/** What the driver writes for an insert's document (bson's serialize, no key checks). */
const driverBytes = (doc: object) => Buffer.from(serialize(doc, { checkKeys: false, ignoreUndefined: false }));

function lineItem(row: number): Record<string, unknown> {
  // built field by field, as the compiled row reader builds a line item
  const doc: Record<string, unknown> = {};
  doc.billedCost = row % 3 === 0 ? 0 : 12.345678901234 * row;
  doc.billingAccountId = '123456789012';
  doc.billingAccountName = row % 2 ? 'Payer' : '';
  doc.billingPeriodStart = new Date(Date.UTC(2024, 8, 1));
  doc.chargePeriodStart = new Date(Date.UTC(2024, 8, 1, row % 24));
  doc.chargeDescription = `Amazon Elastic Compute Cloud usage ${row} — with a long description past the short-string copy`;
  doc.consumedQuantity = row;
  doc.listUnitPrice = 0.052;
  doc.resourceId = `arn:aws:ec2:us-east-1:210987654321:instance/i-${String(row).padStart(8, '0')}`;
  doc.assetAccountName = 'Account 654321 ☁';
  doc.pricingCurrencyContractedUnitPrice = 0.0416;
  doc.period = '202409';
  doc.cost = -1.5e-7 * row;
  doc.tags =
    row % 2
      ? []
      : [
          { key: 'env', value: 'prod' },
          { key: 'team', value: 'ünïcode 𝄞' },
        ];
  doc.customColumns = [{ name: 'x_Note', value: 'café ☕, "quoted"' }];
  doc.sourceRow = row;
  doc.tenantId = 'default';
  doc._id = new Types.ObjectId();
  return doc;
}

describe('encodeDocuments', () => {
  it("writes line items byte for byte as the driver's serializer does", () => {
    const docs = Array.from({ length: 200 }, (_, row) => lineItem(row));
    const encoded = encodeDocuments(docs, 64) as Buffer[];
    expect(encoded).toHaveLength(docs.length);
    docs.forEach((doc, index) => expect(encoded[index].equals(driverBytes(doc))).toBe(true));
  });

  it('writes every value kind it takes as bson does, numbers at their bounds included', () => {
    const numbers = [0, -0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, -(2 ** 31) - 1, 2 ** 53 - 1, 2 ** 53, 1.5, Number.NaN];
    const doc = {
      numbers: [...numbers, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MIN_VALUE, Number.MAX_VALUE],
      dates: [new Date(0), new Date(-1), new Date(-8.64e15), new Date(8.64e15), new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 999))],
      strings: [
        '',
        'a',
        'é',
        '☁',
        '𝄞',
        'x'.repeat(8),
        'x'.repeat(9),
        `${'x'.repeat(7)}é`,
        'x'.repeat(33),
        'x'.repeat(64),
        'x'.repeat(65),
        `${'x'.repeat(63)}é`,
        `é${'x'.repeat(63)}`,
        'nul\0inside',
        '\uD800 lone',
      ],
      flags: [true, false],
      nothing: null,
      id: new ObjectId(),
      nested: { deeper: { list: [[1, [2]], {}, []] }, empty: {} },
      'dotted.key': 1,
      $dollar: 2,
      '10': 'an integer-like key comes first, as Object.keys orders it',
      ünï: 'a non-ASCII key',
    };
    const [bytes] = encodeDocuments([doc]) as Buffer[];
    expect(bytes.equals(driverBytes(doc))).toBe(true);
    const bare = Object.assign(Object.create(null) as object, { a: 1 });
    expect((encodeDocuments([{ bare }]) as Buffer[])[0].equals(driverBytes({ bare }))).toBe(true);
  });

  it('grows its buffer past the estimate', () => {
    const docs = [{ text: 'y'.repeat(5000) }, { text: '☁'.repeat(4000) }];
    const encoded = encodeDocuments(docs, 1) as Buffer[];
    docs.forEach((doc, index) => expect(encoded[index].equals(driverBytes(doc))).toBe(true));
  });

  it.each([
    ['undefined', { a: undefined }],
    ['undefined in an array', { a: [1, undefined] }],
    ['a Decimal128', { a: Decimal128.fromString('1.10') }],
    ['a Long', { a: Long.fromNumber(5) }],
    ['a Binary', { a: new Binary(Buffer.from('x')) }],
    ['a Buffer', { a: Buffer.from('x') }],
    ['a class instance', { a: new (class Money {})() }],
    ['an object with toBSON', { a: { toBSON: () => 1 } }],
    ['an invalid Date', { a: new Date(Number.NaN) }],
    ['a key holding NUL', { 'a\0b': 1 }],
    ['a bigint', { a: BigInt(1) }],
    ['a function', { a: () => 1 }],
    ['a symbol', { a: Symbol('s') }],
    ['a RegExp', { a: /x/ }],
  ])('leaves a document holding %s to the driver', (_name, doc) => {
    expect(encodeDocuments([{ fine: 1 }, doc])).toBeUndefined();
  });
});

describe('DocumentBytes', () => {
  it('keeps the documents before and after one it refuses, with nothing of the refused one (even refused halfway)', () => {
    const bytes = new DocumentBytes(16);
    const kept = [lineItem(1), lineItem(2)];
    expect(bytes.push(kept[0])).toBe(true);
    // refused at its last field: what it wrote before is taken back
    expect(bytes.push({ ...lineItem(3), late: Long.fromNumber(1) })).toBe(false);
    expect(bytes.push(kept[1])).toBe(true);
    expect(bytes.push({ text: 'z'.repeat(100) }, 50)).toBe(false);
    expect(bytes.length).toBe(2);
    expect(bytes.views().map((view, index) => view.equals(driverBytes(kept[index])))).toEqual([true, true]);
  });
});

describe('InsertBatch', () => {
  it('stamps the tenant and an _id, and encodes a document as it is added, or keeps it for the driver', () => {
    const batch = new InsertBatch('t1', true, 2);
    const item = lineItem(4);
    delete item._id;
    item.tenantId = 'another';
    const driverOnly = { amount: Decimal128.fromString('1.10') };
    batch.add(item);
    batch.add(driverOnly);
    expect(batch.length).toBe(2);
    expect(item.tenantId).toBe('t1');
    expect(item._id).toBeInstanceOf(Types.ObjectId);
    expect(batch.encoded.views()[0].equals(driverBytes(item))).toBe(true);
    expect(batch.objects).toEqual([{ amount: driverOnly.amount, tenantId: 't1', _id: expect.any(Types.ObjectId) }]);
  });

  it('keeps a document already in BSON as it is, with a new _id first', () => {
    const batch = new InsertBatch('t1', true);
    const { _id, ...item } = lineItem(5);
    batch.addEncoded(driverBytes(item));
    const [bytes] = batch.encoded.views();
    const stored = deserialize(bytes);
    expect(Object.keys(stored)[0]).toBe('_id');
    expect(bytes.equals(driverBytes({ _id: stored._id, ...item }))).toBe(true);
    expect(stored._id.equals(_id)).toBe(false);
  });

  it('keeps the objects, stamped but without an _id (the driver gives it), for a collection that does not encode', () => {
    const batch = new InsertBatch('t1', false);
    batch.add({ a: 1 });
    expect(batch.encoded.length).toBe(0);
    expect(batch.objects).toEqual([{ a: 1, tenantId: 't1' }]);
  });
});
