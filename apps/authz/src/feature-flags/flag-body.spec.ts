import { ProblemException } from '@lib/core';
import { readFlagBody } from './flag-body';

const problemOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ProblemException)
      return { status: error.getStatus(), code: error.code, fields: error.errors?.map((e) => e.field) };
  }
  throw new Error('expected a problem');
};

describe('readFlagBody', () => {
  it('reads either shape', () => {
    expect(readFlagBody({ flag_key: 'A', flag_value: 'true' })).toEqual({ key: 'A', value: 'true' });
    expect(readFlagBody({ configurationkey: 'A', configurationvalue: 'false' })).toEqual({ key: 'A', value: 'false' });
  });

  it('takes the key from the path on PUT and refuses a different one in the body', () => {
    expect(readFlagBody({ flag_value: 'true' }, 'A')).toEqual({ key: 'A', value: 'true' });
    expect(readFlagBody({ configurationkey: 'A', configurationvalue: 'true' }, 'A')).toEqual({ key: 'A', value: 'true' });
    expect(problemOf(() => readFlagBody({ configurationkey: 'B', configurationvalue: 'true' }, 'A'))).toMatchObject({
      status: 400,
      code: 'FLAG_KEY_MISMATCH',
    });
  });

  it('refuses a mix of shapes, an empty body, a missing half and other values', () => {
    expect(problemOf(() => readFlagBody({ flag_key: 'A', configurationvalue: 'true' }))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      fields: ['flag_key', 'configurationvalue'],
    });
    expect(problemOf(() => readFlagBody({}))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      fields: ['configurationkey', 'configurationvalue'],
    });
    expect(problemOf(() => readFlagBody({ flag_key: 'A' }))).toEqual({ status: 400, code: 'VALIDATION_FAILED', fields: ['flag_value'] });
    expect(problemOf(() => readFlagBody({ flag_value: 'true' }))).toEqual({ status: 400, code: 'VALIDATION_FAILED', fields: ['flag_key'] });
    expect(problemOf(() => readFlagBody({ flag_key: 'A', flag_value: 'yes' }))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      fields: ['flag_value'],
    });
  });
});
