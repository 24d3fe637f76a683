import { describe, expect, it } from '@jest/globals';
import { ApiError, problemOf } from './problem';

describe('API problems as the console shows them', () => {
  it('reads a problem+json body: code, detail, title, request id, position and invalid fields', () => {
    const error = problemOf(400, {
      type: 'https://corelite.dev/problems/invalid-expression',
      title: 'Bad Request',
      status: 400,
      code: 'INVALID_EXPRESSION',
      detail: 'Unexpected end of the expression',
      position: 12,
      requestId: 'req-1',
    });
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'INVALID_EXPRESSION',
      detail: 'Unexpected end of the expression',
      position: 12,
      heading: 'Bad Request',
      requestId: 'req-1',
    });
    const fields = problemOf(400, {
      code: 'VALIDATION_FAILED',
      detail: 'Invalid request',
      errors: [{ field: 'amount', messages: ['must be positive', 'must be a number'] }],
    });
    expect(fields.message).toBe('Invalid request — amount: must be positive, must be a number');
  });

  it('takes the request id from the x-request-id header when the body has none', () => {
    expect(problemOf(500, { detail: 'Boom', code: 'INTERNAL' }, 'from-header').requestId).toBe('from-header');
    expect(problemOf(500, { detail: 'Boom', requestId: 'from-body' }, 'from-header').requestId).toBe('from-body');
    expect(problemOf(502, 'Bad gateway', 'gw-1')).toMatchObject({ code: 'HTTP_502', detail: 'Bad gateway', requestId: 'gw-1' });
    expect(problemOf(500, { detail: 'Boom' }, null).requestId).toBeUndefined();
  });

  it('says what the server answered when its body is no problem', () => {
    expect(problemOf(502, 'x'.repeat(400)).detail).toBe('The server answered 502');
    expect(problemOf(504, undefined)).toMatchObject({ code: 'HTTP_504', detail: 'The server answered 504' });
    expect(problemOf(500, { detail: undefined }).detail).toBe('The server answered 500');
  });

  it('heads a problem with its title, in plainer words for a refusal or no connection', () => {
    expect(new ApiError(0, 'NETWORK_ERROR', 'unreachable').heading).toBe('Connection problem');
    expect(new ApiError(403, 'TEAM_REQUIRED', 'no team', { title: 'Forbidden' }).heading).toBe('Not allowed');
    expect(new ApiError(409, 'CONFLICT', 'taken', { title: 'Conflict' }).heading).toBe('Conflict');
    expect(new ApiError(500, 'HTTP_500', 'boom').heading).toBe('Something went wrong');
  });

  it('has a position only for an invalid expression', () => {
    expect(new ApiError(400, 'INVALID_EXPRESSION', 'bad', { position: 0 }).position).toBe(0);
    expect(new ApiError(400, 'VALIDATION_FAILED', 'bad', { position: 3 }).position).toBeUndefined();
  });

  it('keeps the rule an invalid expression of a list of rules is about', () => {
    expect(problemOf(400, { code: 'INVALID_EXPRESSION', detail: 'rules[2].expr: bad', rule: 2, position: 4 })).toMatchObject({
      rule: 2,
      position: 4,
    });
    expect(problemOf(400, { code: 'INVALID_EXPRESSION', detail: 'bad', rule: 0 }).position).toBeUndefined();
    expect(new ApiError(409, 'DIMENSION_VERSION_CONFLICT', 'x', { rule: 1 }).rule).toBeUndefined();
  });
});
