// A self-signed certificate for the simulator's HTTPS listener (spec 1: HTTPS only), valid for
// localhost and 127.0.0.1 only. It is not a CA (cA: false), so trusting it lets a client reach the
// simulator and nothing else.

export interface TlsPair { key: string; cert: string }

export async function selfSignedLocalhost(): Promise<TlsPair> {
  // Loaded when a certificate is made: the sandbox hands the simulator the data directory's own.
  // The default export, not a named one: bundled with code splitting (bin/build.mjs), a CommonJS
  // module's chunk exports only its module.exports as default.
  const { default: selfsigned } = await import('selfsigned');
  const notBeforeDate = new Date(Date.now() - 60_000);
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + 365 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
