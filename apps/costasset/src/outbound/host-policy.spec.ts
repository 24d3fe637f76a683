import { isForbiddenAddress, isForbiddenHost, isForbiddenLiteral } from './host-policy';

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.10',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::',
    '::1',
    '[::1]',
    'fc00::',
    'fc00::1',
    '192.168.0.1',
    '10.0.0.1',
    'fd12:3456::1',
    'fe80::1',
    'fe80::1%eth0',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:c0a8:0101',
    '0:0:0:0:0:ffff:192.168.0.1',
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2001:4860:4860::8888'])(
    'allows %s',
    (address) => {
      expect(isForbiddenAddress(address)).toBe(false);
    },
  );
});

describe('isForbiddenHost and isForbiddenLiteral', () => {
  it('refuses loopback names and literals, allows public literals', async () => {
    expect(await isForbiddenHost('localhost')).toBe(true);
    expect(await isForbiddenHost('127.0.0.1')).toBe(true);
    expect(await isForbiddenHost('[::1]')).toBe(true);
    expect(await isForbiddenHost('8.8.8.8')).toBe(false);
    expect(isForbiddenLiteral('[::1]')).toBe(true);
    expect(isForbiddenLiteral('10.0.0.1')).toBe(true);
    expect(isForbiddenLiteral('example.com')).toBe(false);
  });
});
