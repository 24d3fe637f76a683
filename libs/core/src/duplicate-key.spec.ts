import { duplicateKeyFields, isDuplicateKey, onlyDuplicateKeys } from './duplicate-key';

describe('duplicateKeyFields', () => {
  it('names the fields of the violated unique index, without the tenant', () => {
    expect(duplicateKeyFields({ code: 11000, keyPattern: { tenantId: 1, name: 1 }, keyValue: { tenantId: 't', name: 'x' } })).toEqual([
      'name',
    ]);
    expect(duplicateKeyFields({ code: 11000, keyValue: { tenantId: 't', singletonKey: 'internal' } })).toEqual(['singletonKey']);
    expect(
      duplicateKeyFields({
        code: 11000,
        message: 'E11000 duplicate key error collection: db.teams index: tenantId_1_externalRefKey_1 dup key: { }',
      }),
    ).toEqual(['externalRefKey']);
  });

  it('reads the first write error of a bulk write (insertMany), and field names holding underscores from the message', () => {
    const bulk = { code: 11000, message: 'E11000 …', writeErrors: [{ err: { code: 11000, keyPattern: { tenantId: 1, idp_id: 1 } } }] };
    expect(duplicateKeyFields(bulk)).toEqual(['idp_id']);
    const message =
      'E11000 duplicate key error collection: db.idp_mappings index: ' +
      'tenantId_1_idp_id_1 dup key: { tenantId: "default", idp_id: "idp-default" }';
    expect(duplicateKeyFields({ code: 11000, message })).toEqual(['idp_id']);
  });

  it('answers undefined for anything that is not a duplicate key', () => {
    expect(duplicateKeyFields(new Error('boom'))).toBeUndefined();
    expect(duplicateKeyFields({ code: 11001 })).toBeUndefined();
    expect(duplicateKeyFields(null)).toBeUndefined();
    expect(isDuplicateKey({ code: 11000, keyPattern: { tenantId: 1, idp_id: 1 } })).toBe(true);
    expect(isDuplicateKey(undefined)).toBe(false);
  });
});

describe('onlyDuplicateKeys', () => {
  it('is true when every write error of a bulk write is a duplicate key', () => {
    expect(onlyDuplicateKeys({ writeErrors: [{ code: 11000 }, { err: { code: 11000 } }] })).toBe(true);
    expect(onlyDuplicateKeys({ writeErrors: { code: 11000 } })).toBe(true);
    expect(onlyDuplicateKeys({ writeErrors: [{ code: 11000 }, { code: 121 }] })).toBe(false);
    expect(onlyDuplicateKeys({ writeErrors: [] })).toBe(false);
    expect(onlyDuplicateKeys(new Error('boom'))).toBe(false);
  });
});
