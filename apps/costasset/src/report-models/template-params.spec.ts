import { ProblemException } from '@lib/core';
import { parseTemplateParams } from './template-params';

describe('parseTemplateParams', () => {
  it('accepts a JSON object of strings', () => {
    expect(parseTemplateParams('{}')).toEqual({});
    expect(parseTemplateParams('{"period":"202410"}')).toEqual({ period: '202410' });
  });

  it.each(['', 'nope', '[]', 'null', '"x"', '{"a":1}', '{"a":{"$gt":""}}'])('refuses %p with 400 INVALID_TEMPLATE_PARAMS', (raw) => {
    let caught: unknown;
    try {
      parseTemplateParams(raw);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ProblemException);
    expect((caught as ProblemException).code).toBe('INVALID_TEMPLATE_PARAMS');
  });
});
