import { extractToken } from './token-extractor';

describe('extractToken', () => {
  it('prefers the header, then the bearer', () => {
    expect(extractToken({ 'corelite-token': 'h', authorization: 'Bearer b' })).toBe('h');
    expect(extractToken({ authorization: 'Bearer b' })).toBe('b');
    expect(extractToken({ authorization: 'Basic b' })).toBeUndefined();
    expect(extractToken({})).toBeUndefined();
  });

  it('never reads the token from a cookie (a cross-site request carries the cookies of the site)', () => {
    expect(extractToken({ cookie: 'corelite-token=c' })).toBeUndefined();
    expect(extractToken({ cookie: 'a=1; corelite-token=c', authorization: 'Bearer b' })).toBe('b');
  });
});
