import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { derInteger, selfSignedCertificate } from '../../src/lib/self-signed.ts';
import { generateSelfSigned } from '../../src/lib/tls.ts';

// The self-signed certificate written with node:crypto alone (src/lib/self-signed.ts; it was made by
// the `selfsigned` package, issue 28): what X.509 readers and a TLS client see in it.

describe('selfSignedCertificate', () => {
  it('[DES-006] the generated certificate names localhost and the loopback addresses, is signed by its own key and is not a CA', async () => {
    const { key, cert } = await generateSelfSigned();
    const x509 = new X509Certificate(cert);
    expect(x509.subject).toBe('CN=localhost');
    expect(x509.issuer).toBe('CN=localhost');
    expect(x509.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(x509.ca).toBe(false);
    expect(x509.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(x509.verify(createPublicKey(key))).toBe(true);
    expect(x509.checkPrivateKey(createPrivateKey(key))).toBe(true);
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkIP('::1')).toBe('::1');
    expect(x509.checkHost('example.com')).toBeUndefined();
    expect(key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    // Two years from a minute ago.
    const from = new Date(x509.validFrom).getTime();
    expect(Math.abs(from - (Date.now() - 60_000))).toBeLessThan(10_000);
    expect(new Date(x509.validTo).getTime() - from).toBe(2 * 365 * 24 * 3600 * 1000);
  });

  it('a TLS client that trusts the certificate connects to a server presenting it', async () => {
    const material = await generateSelfSigned();
    const server = createServer(material, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const host of ['localhost', '127.0.0.1']) {
        const body = await new Promise<string>((resolve, reject) => {
          request({ host: '127.0.0.1', servername: host === 'localhost' ? host : undefined, port, ca: material.cert, path: '/' }, (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve(text));
          }).on('error', reject).end();
        });
        expect(body).toBe('ok');
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('dates from 2050 are GeneralizedTime, long names and other addresses are encoded as given', () => {
    const { cert } = selfSignedCertificate({
      commonName: 'x'.repeat(200),
      notBefore: new Date('2049-12-31T23:59:59Z'),
      notAfter: new Date('2051-06-01T12:00:00Z'),
      dnsNames: ['a.example', 'b.example'],
      ips: ['10.1.2.3', 'fe80::1:2', '2001:db8::'],
    });
    const x509 = new X509Certificate(cert);
    expect(x509.subject).toBe(`CN=${'x'.repeat(200)}`);
    expect(new Date(x509.validFrom).toISOString()).toBe('2049-12-31T23:59:59.000Z');
    expect(new Date(x509.validTo).toISOString()).toBe('2051-06-01T12:00:00.000Z');
    expect(x509.subjectAltName).toBe(
      'DNS:a.example, DNS:b.example, IP Address:10.1.2.3, IP Address:FE80:0:0:0:0:0:1:2, IP Address:2001:DB8:0:0:0:0:0:0',
    );
  });

  it('integers are written in DER\'s minimal form (OpenSSL refuses a certificate whose serial has a needless leading zero byte)', () => {
    const hex = (b: number[]) => derInteger(Buffer.from(b)).toString('hex');
    expect(hex([2])).toBe('020102');
    expect(hex([0])).toBe('020100');
    expect(hex([0x80])).toBe('02020080');
    expect(hex([0x00, 0x05])).toBe('020105');
    expect(hex([0x00, 0x00, 0x85, 0x01])).toBe('0203008501');
    expect(hex([0x00, 0x85])).toBe('02020085');
  });

  it('every certificate made parses: 3,000 in a row (a random serial starting 0x00 0x00-0x7f failed 1 in 256)', () => {
    const from = new Date('2026-01-01T00:00:00Z');
    const to = new Date('2028-01-01T00:00:00Z');
    for (let i = 0; i < 3000; i++) {
      const { cert } = selfSignedCertificate({ commonName: 'localhost', notBefore: from, notAfter: to, dnsNames: ['localhost'], ips: ['127.0.0.1'] });
      // Parsing throws "illegal padding" on a non-minimal INTEGER; the serial is 64 bits, first bit 0, second 1.
      const serial = new X509Certificate(cert).serialNumber;
      expect(serial).toMatch(/^[4-7][0-9A-F]{15}$/);
    }
  });
});
