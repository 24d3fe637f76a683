import type { Response } from 'supertest';

/**
 * Asserts an RFC 9457 problem: status, stable `code`, the problem+json content type, the standard
 * members, no internals leaked, and, when given, exactly the fields named in `errors`.
 */
export function expectProblem(res: Response, status: number, code: string, fields?: string[]): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
  expect(JSON.stringify(res.body)).not.toMatch(/"stack"|at Object\.|node_modules/);
  if (fields) expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([...fields].sort());
}
