import { ObjectId, serialize } from 'bson';
import type { Document } from './bson-values';
import { Collection } from './collection';
import { decodeStoredDocument } from './document-decoder';
import { IndexState } from './index-state';
import { removalBody } from './persistence/journal';
import { compileFilter } from './query-engine';
import { FieldSelection } from './record-codec';

function lineItems(): Collection {
  const collection = new Collection('db', 'items', {}, null);
  collection.addIndex(new IndexState({ v: 2, key: { tenantId: 1, uploadRefId: 1 }, name: 'upload' }, null, null));
  collection.addIndex(new IndexState({ v: 2, key: { 'tags.key': 1 }, name: 'tags' }, null, null));
  return collection;
}

const matcher = (filter: Document) => compileFilter(filter, { collation: null });

describe('Collection', () => {
  it('inserts straight from BSON what the decoding path would store, with the same index entries', () => {
    const direct = lineItems();
    const decoded = lineItems();
    const docs = [
      { _id: new ObjectId(), tenantId: 't', uploadRefId: 'u1', cost: 1.5, tags: [{ key: 'env', value: 'prod' }] },
      { _id: 'text', tenantId: 't', uploadRefId: 'u2', nested: { a: [1, 'x'] } },
    ];
    for (const doc of docs) {
      const bytes = Buffer.from(serialize(doc));
      expect(direct.insertBson(Buffer.from(bytes), true)).toBe(true);
      decoded.insert(decodeStoredDocument(bytes));
    }
    expect([...direct.documents()].map((doc) => serialize(doc))).toEqual([...decoded.documents()].map((doc) => serialize(doc)));
    direct.indexes.forEach((index, i) => expect(index.size).toBe(decoded.indexes[i].size));
    // Without an `_id`, one is generated first.
    expect(direct.insertBson(Buffer.from(serialize({ tenantId: 't' })), false)).toBe(true);
    const [generated] = [...direct.documents(-1)];
    expect(Object.keys(generated)).toEqual(['_id', 'tenantId']);
    expect(generated._id).toBeInstanceOf(ObjectId);
    // A duplicate `_id` fails before anything changes; a document only bson reads is left to the caller.
    expect(() => direct.insertBson(Buffer.from(serialize(docs[1])), true)).toThrow(/E11000/);
    expect(direct.insertBson(Buffer.from(serialize({ _id: 9, big: BigInt(1) }, { useBigInt64: true } as never)), true)).toBe(false);
    expect(direct.size).toBe(3);
  });

  it('tests a filter on the fields it reads and keeps a write from decoding an unchanged match again', () => {
    const collection = lineItems();
    for (let i = 0; i < 4; i++) collection.insert({ _id: i, tenantId: 't', uploadRefId: `u${i % 2}`, n: i, tags: [] });
    const filter = matcher({ uploadRefId: 'u0', n: { $lt: 3 } });
    expect(filter.fields?.names).toEqual(new Set(['uploadRefId', 'n']));
    expect(matcher({ $expr: { $eq: ['$n', 1] } }).fields).toBeNull();
    expect(matcher({ $or: [{ 'a.b': 1 }, { c: 2 }] }).fields?.names).toEqual(new Set(['a', 'c']));

    const fetch = collection.writeFetch(filter, collection.indexedFields);
    expect(fetch.fields?.names).toEqual(new Set(['_id', 'tenantId', 'uploadRefId', 'tags', 'n']));
    const key = (id: number): string => collection.idKeyOf(id);
    expect(collection.fetchMatching(key(1), filter, fetch)).toBeNull();
    expect(collection.fetchMatching(key(9), filter, fetch)).toBeUndefined();
    const first = collection.fetchMatching(key(0), filter, fetch) as Document;
    expect(first).toEqual({ _id: 0, tenantId: 't', uploadRefId: 'u0', n: 0, tags: [] });
    const second = collection.fetchMatching(key(2), filter, fetch) as Document;
    // A find gets the whole document.
    expect(collection.fetchMatching(key(2), filter, { fields: null, forWrite: false })).toEqual({
      _id: 2,
      tenantId: 't',
      uploadRefId: 'u0',
      n: 2,
      tags: [],
    });

    // Unchanged: the fetched document itself.
    expect(collection.currentMatch(first, filter)).toBe(first);
    // Changed and still matching: its new version; changed so that it no longer matches: none.
    collection.replace(collection.getById(0) as Document, { _id: 0, tenantId: 't', uploadRefId: 'u0', n: 1, tags: [] });
    expect(collection.currentMatch(first, filter)).toMatchObject({ _id: 0, n: 1 });
    collection.replace(collection.getById(2) as Document, { _id: 2, tenantId: 't', uploadRefId: 'u0', n: 5, tags: [] });
    expect(collection.currentMatch(second, filter)).toBeUndefined();
    // Removed, then inserted again with the same `_id` (perhaps in the same row): tested again.
    collection.remove(collection.currentMatch(first, filter) as Document);
    expect(collection.currentMatch(first, filter)).toBeUndefined();
    collection.insert({ _id: 0, tenantId: 't', uploadRefId: 'u1', n: 0, tags: [] });
    expect(collection.currentMatch(first, filter)).toBeUndefined();
    expect(collection.indexes[0].size).toBe(4);
  });

  it('decodes whole documents for an index whose partial filter may read any field', () => {
    const collection = lineItems();
    expect(collection.indexedFields?.names).toEqual(new Set(['_id', 'tenantId', 'uploadRefId', 'tags']));
    const partial = matcher({ $expr: { $gt: ['$n', 1] } });
    collection.addIndex(new IndexState({ v: 2, key: { n: 1 }, name: 'n', partialFilterExpression: {} }, null, partial));
    expect(collection.indexedFields).toBeNull();
    collection.dropIndex('n');
    expect(collection.indexedFields).toBeInstanceOf(FieldSelection);
  });

  it('journals the removal of an ObjectId as bson encodes { _id }', () => {
    const id = new ObjectId();
    expect(Buffer.from(removalBody(id) as Uint8Array)).toEqual(Buffer.from(serialize({ _id: id })));
    expect(removalBody('text')).toEqual({ _id: 'text' });
  });
});
