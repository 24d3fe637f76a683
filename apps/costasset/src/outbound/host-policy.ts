/**
 * The one rule for outbound connections to addresses a tenant's admin chooses (account migration's
 * legacy service, notification webhooks): no private, loopback, link-local, unique-local, CGNAT or
 * unspecified address, unless the deployment allows private hosts for that feature. Checked when the
 * address is given (`isForbiddenHost`) and again on every connection (`guardedLookup`,
 * `isForbiddenLiteral`), so a name that resolves elsewhere later is still refused.
 */
import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
// IPv4: "this network"/unspecified, private, CGNAT, loopback, link-local, IETF protocol assignments, benchmarking, multicast,
// reserved, broadcast.
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
// IPv6: unspecified, loopback, NAT64, unique-local, link-local, site-local (deprecated), multicast.
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, in any spelling) → `a.b.c.d`; anything else unchanged. */
function unmapped(address: string): string {
  if (isIP(address) !== 6) return address;
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return address;
  const [high, low] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * True for addresses an outbound connection must not reach: private, loopback, link-local, unique-local, unspecified (IPv4 and IPv6, incl.
 * IPv4-mapped).
 */
export function isForbiddenAddress(address: string): boolean {
  const plain = unmapped(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  const family = isIP(plain);
  if (family === 0) return true;
  return blocked.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export class ForbiddenAddressError extends Error {
  readonly code = 'EADDRNOTALLOWED';
}

/**
 * A `lookup` for http(s).request that refuses forbidden addresses at connection time, so that a
 * host cannot resolve to a public address when checked and to a private one when connected.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const forbidden = allowPrivate ? undefined : addresses.find((entry) => isForbiddenAddress(entry.address));
      if (forbidden) return callback(new ForbiddenAddressError(`${hostname} resolves to a private or loopback address`), '');
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** The host of a URL without IPv6 brackets. */
const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

/** A host given as an address literal (connected to without a lookup, so `guardedLookup` never sees it) that is forbidden. */
export function isForbiddenLiteral(hostname: string): boolean {
  const host = bare(hostname);
  return isIP(host) !== 0 && isForbiddenAddress(host);
}

/**
 * Whether `hostname` is, or resolves to, a forbidden address (any of its addresses). A name that
 * does not resolve passes here: the connection then fails with the reason, and is guarded too.
 */
export async function isForbiddenHost(hostname: string): Promise<boolean> {
  const host = bare(hostname);
  const addresses = isIP(host)
    ? [host]
    : await lookup(host, { all: true, verbatim: true }).then(
        (found) => found.map((entry) => entry.address),
        () => [],
      );
  return addresses.some(isForbiddenAddress);
}
