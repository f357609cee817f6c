import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// URLs that partners give us (an RMS's booking-services base URL, a webhook endpoint) are called by
// the service from inside its own network. Without a guard a partner could make us call our own
// admin endpoint, a database, or a cloud metadata service (SSRF). Two checks, because a host name's
// answer can change between them (DNS rebinding): the URL is checked when it is saved, and every
// connection re-checks the address it is about to connect to (`guardedLookup`).
// ALLOW_PRIVATE_TARGETS=1 lifts the address rule (tests and the sandbox call simulators on loopback);
// the https rule always holds.

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT (also Alibaba's metadata 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, and the metadata address 169.254.169.254 of most clouds
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): not globally reachable, whatever it embeds
  ['fc00::', 7], // unique local (also AWS's metadata fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The eight 16-bit words of an IPv6 address (`::`, a trailing dotted IPv4 and a zone id allowed); null when it is not one. */
function ipv6Words(address: string): number[] | null {
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const b = dotted.slice(2).map(Number);
    if (b.some((n) => n > 255)) return null;
    text = `${dotted[1]}${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (s: string) => (s === '' ? [] : s.split(':'));
  const head = part(halves[0]!);
  const tail = halves.length === 2 ? part(halves[1]!) : [];
  const gap = 8 - head.length - tail.length;
  if (halves.length === 2 ? gap < 1 : gap !== 0) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? gap : 0).fill('0'), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}

const ipv4Of = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');

/**
 * The IPv4 addresses an IPv6 address carries, by the forms that route to them: IPv4-mapped
 * `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`, IPv4-compatible `::/96`, NAT64 `64:ff9b::/96`,
 * 6to4 `2002::/16` (bits 16-47) and Teredo `2001::/32` (the server in bits 32-63, the client in the
 * last 32 bits inverted). A partner could otherwise reach 127.0.0.1 or 169.254.169.254 through them.
 */
function embeddedIpv4(w: number[]): string[] {
  const zeros = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  const last = ipv4Of(w[6]!, w[7]!);
  if (zeros(0, 5) && (w[5] === 0xffff || w[5] === 0)) return [last];
  if (zeros(0, 4) && w[4] === 0xffff && w[5] === 0) return [last];
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return [last];
  if (w[0] === 0x2002) return [ipv4Of(w[1]!, w[2]!)];
  if (w[0] === 0x2001 && w[1] === 0) return [ipv4Of(w[2]!, w[3]!), ipv4Of(~w[6]! & 0xffff, ~w[7]! & 0xffff)];
  return [];
}

/** True for loopback, private, link-local, metadata, multicast and other non-public addresses. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  const words = family === 6 ? ipv6Words(address) : null;
  if (!words) return true; // not an address at all: never connect to it
  const canonical = words.map((x) => x.toString(16)).join(':');
  if (blocked.check(canonical, 'ipv6')) return true;
  return embeddedIpv4(words).some((v4) => blocked.check(v4, 'ipv4'));
}

export type Resolver = (host: string) => Promise<string[]>;

/** Every address a host name resolves to (an IP literal resolves to itself). */
export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses: LookupAddress[]) =>
      err ? reject(err) : resolve(addresses.map((a) => a.address)),
    );
  });

export interface OutboundUrlOptions {
  /** ALLOW_PRIVATE_TARGETS: loopback and private addresses are allowed (tests, sandbox). */
  allowPrivate: boolean;
  /**
   * Sandbox mode only (webhook endpoints): plain http:// to localhost, 127.0.0.1 or [::1] is accepted,
   * so a partner's receiver on its own machine needs no certificate. Never set in production.
   */
  plainLoopback?: boolean;
  resolver?: Resolver;
}

/** The hosts `plainLoopback` lets a sandbox call over plain HTTP: this machine only. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** http:// on a loopback host, in sandbox mode: the traffic never leaves the machine, so TLS adds nothing there. */
function isPlainLoopback(url: URL, opts: OutboundUrlOptions): boolean {
  return opts.plainLoopback === true && url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

export type OutboundUrlCheck = { ok: true; url: URL } | { ok: false; problem: string };

/**
 * Whether the service may call a partner-given URL: https, no credentials in it, and a host that
 * resolves only to public addresses. `problem` is a sentence fit for a 400's field details.
 */
export async function checkOutboundUrl(raw: string, opts: OutboundUrlOptions): Promise<OutboundUrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'must be an absolute URL' };
  }
  if (url.protocol !== 'https:' && !isPlainLoopback(url, opts)) {
    return { ok: false, problem: opts.plainLoopback ? 'must be an https URL (or, in the sandbox, http://localhost, http://127.0.0.1 or http://[::1])' : 'must be an https URL' };
  }
  if (url.username || url.password) return { ok: false, problem: 'must not carry credentials; send them in their own field' };
  if (opts.allowPrivate) return { ok: true, url };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await (opts.resolver ?? systemResolver)(host);
  } catch {
    return { ok: false, problem: `host ${host} could not be resolved` };
  }
  if (addresses.length === 0) return { ok: false, problem: `host ${host} could not be resolved` };
  const bad = addresses.find(isNonPublicAddress);
  if (bad !== undefined) {
    return { ok: false, problem: `must not point at a loopback, private, link-local or metadata address (${host} resolves to ${bad})` };
  }
  return { ok: true, url };
}

export class BlockedAddressError extends Error {
  readonly code = 'ERR_BLOCKED_ADDRESS';
  constructor(host: string, address: string) {
    super(`refusing to connect to ${host}: it resolves to the non-public address ${address}`);
    this.name = 'BlockedAddressError';
  }
}

/**
 * A `lookup` for net/tls `connect` (undici's `connect` option) that refuses non-public addresses at
 * connection time, so a host that resolved to a public address when its URL was saved cannot be
 * re-pointed at an internal one later. With allowPrivate it is the plain system lookup. An address
 * literal in a URL is never looked up; `checkOutboundUrl` refuses those when the URL is saved, and a
 * literal cannot change afterwards.
 */
export function guardedLookup(opts: { allowPrivate: boolean; lookup?: LookupFunction }): LookupFunction {
  const base = opts.lookup ?? (dnsLookup as unknown as LookupFunction);
  if (opts.allowPrivate) return base;
  return (hostname, options, callback) => {
    base(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const list = Array.isArray(address) ? address.map((a) => a.address) : [address];
      const bad = list.find(isNonPublicAddress);
      if (bad !== undefined) return callback(new BlockedAddressError(hostname, bad), address, family);
      callback(null, address, family);
    });
  };
}
