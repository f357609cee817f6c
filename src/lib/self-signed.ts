import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIPv4 } from 'node:net';

// A self-signed X.509 certificate made with node:crypto alone: an ECDSA P-256 key, and the
// certificate's DER written here (RFC 5280). It was made with the `selfsigned` package, whose X.509
// library took about 0.2 s of CPU to load at every first start (issue 28); the certificate is the
// same: version 3, ecdsa-with-SHA256, subject and issuer CN=<name>, not a CA, key usage
// digitalSignature + keyEncipherment, extended key usage serverAuth, and the alternative names given.

/** A DER element: tag, length, contents. */
function der(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  const n = body.length;
  if (n > 0xffff) throw new Error('a DER element over 64 KiB');
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), body]);
}

const seq = (...items: Buffer[]) => der(0x30, ...items);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a! * 40 + b!];
  for (const arc of rest) {
    const septets = [arc & 0x7f];
    for (let v = arc >>> 7; v > 0; v >>>= 7) septets.unshift((v & 0x7f) | 0x80);
    bytes.push(...septets);
  }
  return der(0x06, Buffer.from(bytes));
}

/**
 * A non-negative INTEGER from big-endian bytes, in DER's minimal form: leading zero bytes dropped,
 * one put back only where the high bit would make it negative. OpenSSL refuses any other form
 * ("illegal padding"): a random serial whose first byte came out 0 made 1 start in 256 fail.
 */
export function derInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const minimal = bytes.subarray(start);
  return der(0x02, minimal[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280 4.1.2.5), to the second. */
function time(d: Date): Buffer {
  const iso = d.toISOString();
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '');
  return d.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(`${digits.slice(2)}Z`)) : der(0x18, Buffer.from(`${digits}Z`));
}

const name = (commonName: string) => seq(der(0x31, seq(oid('2.5.4.3'), der(0x0c, Buffer.from(commonName, 'utf8')))));
const extension = (id: string, value: Buffer) => seq(oid(id), der(0x04, value));

/** An IP address's bytes: IPv4's four, IPv6's sixteen ('::' expanded). */
function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, ''];
  const groups = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = groups(head);
  const t = groups(tail);
  const all = [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
  return Buffer.from(all.flatMap((g) => [g >> 8, g & 0xff]));
}

export interface SelfSignedOptions {
  commonName: string;
  notBefore: Date;
  notAfter: Date;
  dnsNames: string[];
  ips: string[];
}

/** A new P-256 key (PKCS#8 PEM) and a self-signed certificate for it (PEM). */
export function selfSignedCertificate(o: SelfSignedOptions): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  // 64 random bits, positive and of a fixed length (RFC 5280 4.1.2.2: at most 20 bytes).
  const serial = randomBytes(8);
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  const altNames = seq(
    ...o.dnsNames.map((d) => der(0x82, Buffer.from(d, 'ascii'))),
    ...o.ips.map((ip) => der(0x87, ipBytes(ip))),
  );
  const tbs = seq(
    der(0xa0, derInteger(Buffer.from([2]))),
    derInteger(serial),
    ecdsaWithSha256,
    name(o.commonName),
    seq(time(o.notBefore), time(o.notAfter)),
    name(o.commonName),
    publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, seq(
      extension('2.5.29.19', seq()),
      extension('2.5.29.15', der(0x03, Buffer.from([0x05, 0xa0]))),
      extension('2.5.29.37', seq(oid('1.3.6.1.5.5.7.3.1'))),
      extension('2.5.29.17', altNames),
    )),
  );
  // ECDSA's signature as DER (r, s), which is what X.509's signatureValue holds.
  const signature = sign('sha256', tbs, privateKey);
  const certificate = seq(tbs, ecdsaWithSha256, der(0x03, Buffer.from([0]), signature));
  const pem = `-----BEGIN CERTIFICATE-----\n${certificate.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, cert: pem };
}
