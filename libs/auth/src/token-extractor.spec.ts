import { extractToken } from './token-extractor';

describe('extractToken', () => {
  it('prefers the header, then the cookie, then the bearer', () => {
    expect(extractToken({ 'corelite-token': 'h', cookie: 'corelite-token=c', authorization: 'Bearer b' })).toBe('h');
    expect(extractToken({ cookie: 'a=1; corelite-token=c', authorization: 'Bearer b' })).toBe('c');
    expect(extractToken({ authorization: 'Bearer b' })).toBe('b');
    expect(extractToken({ authorization: 'Basic b' })).toBeUndefined();
    expect(extractToken({})).toBeUndefined();
  });
});
