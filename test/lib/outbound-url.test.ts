import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Agent, request } from 'undici';
import { checkOutboundUrl, guardedLookup, isNonPublicAddress } from '../../src/lib/outbound-url.ts';
import { generateSelfSigned } from '../../src/lib/tls.ts';

describe('[BKG-03] which addresses a partner-given URL may reach', () => {
  test.each([
    '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '169.254.0.1', '100.100.100.200', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1',
    'fd00:ec2::254', 'fc00::5', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::10.0.0.1',
    'not-an-address',
  ])('%s is not public', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  // IPv6 forms that carry an IPv4 address: the IPv4 address decides. 64:ff9b:1::/48 (local-use NAT64,
  // RFC 8215) is not globally reachable whatever it embeds.
  test.each([
    ['IPv4-compatible ::/96, loopback', '::127.0.0.1'],
    ['IPv4-compatible ::/96, loopback (hex)', '::7f00:1'],
    ['IPv4-compatible ::/96, private', '::10.0.0.1'],
    ['IPv4-compatible ::/96, metadata', '::a9fe:a9fe'],
    ['6to4 2002::/16, loopback', '2002:7f00:1::'],
    ['6to4 2002::/16, private', '2002:a00:1::1'],
    ['6to4 2002::/16, metadata', '2002:a9fe:a9fe::1'],
    ['6to4 2002::/16, private 192.168', '2002:c0a8:101:0:0:0:0:1'],
    ['local-use NAT64 64:ff9b:1::/48, private', '64:ff9b:1::a00:1'],
    ['local-use NAT64 64:ff9b:1::/48, /48 embedding of loopback', '64:ff9b:1:7f00:0:100::'],
    ['local-use NAT64 64:ff9b:1::/48, even a public address', '64:ff9b:1::5db8:d822'],
    ['NAT64 64:ff9b::/96, loopback', '64:ff9b::7f00:1'],
    ['NAT64 64:ff9b::/96, metadata', '64:ff9b::169.254.169.254'],
    ['NAT64 64:ff9b::/96, private (expanded)', '0064:ff9b:0000:0000:0000:0000:0a00:0001'],
    ['IPv4-mapped ::ffff:0:0/96, private', '::ffff:10.0.0.1'],
    ['IPv4-mapped ::ffff:0:0/96, link-local (expanded)', '0:0:0:0:0:ffff:a9fe:1'],
    ['IPv4-translated ::ffff:0:0:0/96, loopback', '::ffff:0:7f00:1'],
    ['Teredo 2001::/32, a private server', '2001:0:a00:1:0:0:a247:27dd'],
    ['Teredo 2001::/32, a loopback client (inverted bits)', '2001:0:5db8:d822:0:0:80ff:fffe'],
    ['Teredo 2001::/32, a metadata client (inverted bits)', '2001:0:5db8:d822:8000:1234:5601:5601'],
    ['a zone id does not hide a link-local address', 'fe80::1%eth0'],
  ])('[BKG-03] %s (%s) is not public', (_what, address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  test.each([
    ['6to4 of a public address', '2002:5db8:d822::1'],
    ['NAT64 of a public address', '64:ff9b::5db8:d822'],
    ['NAT64 of a public address (dotted)', '64:ff9b::93.184.216.34'],
    ['IPv4-compatible form of a public address', '::8.8.8.8'],
    ['Teredo with a public server and client', '2001:0:5db8:d822:0:0:a247:27dd'],
    ['an ordinary global address in 2001::/16 outside Teredo', '2001:4860:4860::8888'],
  ])('[BKG-03] %s (%s) is public', (_what, address) => {
    expect(isNonPublicAddress(address)).toBe(false);
  });

  test.each(['https://[2002:7f00:1::]/', 'https://[::127.0.0.1]:8443/', 'https://[64:ff9b::a9fe:a9fe]/latest/meta-data', 'https://[64:ff9b:1::a00:1]/'])(
    '[BKG-03] %s (an IPv6 literal embedding a non-public IPv4) is refused, and allowed with ALLOW_PRIVATE_TARGETS=1',
    async (url) => {
      const refused = await checkOutboundUrl(url, { allowPrivate: false });
      expect(refused).toMatchObject({ ok: false, problem: expect.stringContaining('loopback, private, link-local or metadata') });
      expect((await checkOutboundUrl(url, { allowPrivate: true })).ok).toBe(true);
    },
  );

  test.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(isNonPublicAddress(address)).toBe(false);
    },
  );

  const publicResolver = async () => ['93.184.216.34'];
  const loopbackResolver = async () => ['93.184.216.34', '127.0.0.1'];

  test.each([
    ['http://rms.example.com/api', 'must be an https URL'],
    ['ftp://rms.example.com', 'must be an https URL'],
    ['not a url', 'must be an absolute URL'],
    ['https://user:pw@rms.example.com', 'must not carry credentials'],
  ])('%s is refused whatever ALLOW_PRIVATE_TARGETS says', async (url, problem) => {
    for (const allowPrivate of [false, true]) {
      const check = await checkOutboundUrl(url, { allowPrivate, resolver: publicResolver });
      expect(check.ok).toBe(false);
      if (!check.ok) expect(check.problem).toContain(problem);
    }
  });

  test('[WHK-01] plain http:// is accepted only with plainLoopback (sandbox mode) and only on localhost, 127.0.0.1 or [::1]', async () => {
    for (const url of ['http://localhost:3000/hooks', 'http://127.0.0.1:3000/', 'http://[::1]:3000/h']) {
      expect((await checkOutboundUrl(url, { allowPrivate: true, plainLoopback: true })).ok, url).toBe(true);
      // Production (no sandbox): https only, whatever ALLOW_PRIVATE_TARGETS says.
      for (const allowPrivate of [false, true]) {
        expect(await checkOutboundUrl(url, { allowPrivate, resolver: publicResolver }), url).toMatchObject({ ok: false, problem: 'must be an https URL' });
      }
    }
    // A sandbox that turned ALLOW_PRIVATE_TARGETS off keeps the address rule.
    expect((await checkOutboundUrl('http://127.0.0.1:3000/', { allowPrivate: false, plainLoopback: true })).ok).toBe(false);
    // Not loopback: plain HTTP stays refused in the sandbox too.
    for (const url of ['http://10.0.0.5/h', 'http://example.com/h', 'http://localhost.example.com/h', 'http://127.0.0.2/h']) {
      expect(await checkOutboundUrl(url, { allowPrivate: true, plainLoopback: true, resolver: publicResolver }), url)
        .toMatchObject({ ok: false, problem: expect.stringContaining('must be an https URL') });
    }
  });

  test.each(['https://127.0.0.1/x', 'https://[::1]:8443/', 'https://169.254.169.254/latest/meta-data', 'https://10.0.0.5'])(
    '%s (an address literal) is refused, and allowed with ALLOW_PRIVATE_TARGETS=1',
    async (url) => {
      const refused = await checkOutboundUrl(url, { allowPrivate: false, resolver: publicResolver });
      expect(refused).toMatchObject({ ok: false, problem: expect.stringContaining('loopback, private, link-local or metadata') });
      expect((await checkOutboundUrl(url, { allowPrivate: true })).ok).toBe(true);
    },
  );

  test('the resolved address decides, not the host text: a name with any private answer is refused', async () => {
    expect((await checkOutboundUrl('https://rms.example.com', { allowPrivate: false, resolver: publicResolver })).ok).toBe(true);
    const check = await checkOutboundUrl('https://rms.example.com', { allowPrivate: false, resolver: loopbackResolver });
    expect(check).toMatchObject({ ok: false, problem: expect.stringContaining('resolves to 127.0.0.1') });
    // The machine's own resolver: localhost is loopback.
    expect((await checkOutboundUrl('https://localhost:9443', { allowPrivate: false })).ok).toBe(false);
  });

  test('a host that does not resolve is refused with a readable problem', async () => {
    const check = await checkOutboundUrl('https://nowhere.invalid', {
      allowPrivate: false,
      resolver: async () => {
        throw new Error('ENOTFOUND');
      },
    });
    expect(check).toEqual({ ok: false, problem: 'host nowhere.invalid could not be resolved' });
  });
});

describe('[BKG-03] the address is checked again when connecting (DNS rebinding)', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const tls = await generateSelfSigned();
    server = createServer({ key: tls.key, cert: tls.cert }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  // A resolver that answered a public address when the URL was saved and now answers loopback.
  const rebound: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  };

  async function get(lookup: LookupFunction): Promise<string> {
    const agent = new Agent({ connect: { lookup, rejectUnauthorized: false } });
    try {
      const res = await request(`https://rms.example.com:${port}/healthcheck`, { dispatcher: agent });
      return await res.body.text();
    } finally {
      await agent.close();
    }
  }

  test('a name re-pointed at loopback after it was checked is refused at connect time', async () => {
    const saved = await checkOutboundUrl(`https://rms.example.com:${port}`, { allowPrivate: false, resolver: async () => ['93.184.216.34'] });
    expect(saved.ok).toBe(true);
    await expect(get(guardedLookup({ allowPrivate: false, lookup: rebound }))).rejects.toThrow(/non-public address 127\.0\.0\.1/);
  });

  test('with ALLOW_PRIVATE_TARGETS=1 the same connection goes through', async () => {
    expect(await get(guardedLookup({ allowPrivate: true, lookup: rebound }))).toBe('ok');
  });
});
