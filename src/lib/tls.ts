import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { createSecureContext, type SecureContext } from 'node:tls';
import { selfSignedCertificate } from './self-signed.ts';

export interface TlsMaterial {
  key: string;
  cert: string;
}

/** A self-signed certificate for localhost and the loopback addresses, valid for two years. */
export async function generateSelfSigned(commonName = 'localhost'): Promise<TlsMaterial> {
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + 2 * 365 * 24 * 3600 * 1000);
  return selfSignedCertificate({ commonName, notBefore, notAfter, dnsNames: ['localhost'], ips: ['127.0.0.1', '::1'] });
}

/** Each certificate's end of validity, by its text: a sandbox start reads the same one six times (issue 28). */
const validity = new Map<string, number>();

function validUntil(cert: string): number {
  let until = validity.get(cert);
  if (until === undefined) {
    until = new Date(new X509Certificate(cert).validTo).getTime();
    if (validity.size >= 64) validity.clear();
    validity.set(cert, until);
  }
  return until;
}

/**
 * The certificate in `dir` (tls.key + tls.crt), generated on first use and reused afterwards so
 * clients that trusted it once keep trusting it (DES-006). Regenerated when it has expired.
 */
export async function loadOrCreateSelfSigned(dir: string): Promise<TlsMaterial & { certFile: string }> {
  const keyFile = join(dir, 'tls.key');
  const certFile = join(dir, 'tls.crt');
  if (existsSync(keyFile) && existsSync(certFile)) {
    const material = { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
    if (validUntil(material.cert) > Date.now() + 24 * 3600 * 1000) {
      return { ...material, certFile };
    }
  }
  mkdirSync(dir, { recursive: true });
  const material = await generateSelfSigned();
  writeFileSync(keyFile, material.key, { mode: 0o600 });
  writeFileSync(certFile, material.cert);
  return { ...material, certFile };
}

export function loadTlsFiles(certFile: string, keyFile: string): TlsMaterial {
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

const trustingContexts = new Map<string, SecureContext>();

/**
 * NODE_EXTRA_CA_CERTS's certificates; none when it cannot be read, as Node itself does (it warns at
 * start), or when it is still what Node read at start (recorded by bin/tableside.mjs): Node's default
 * context, which trustingContext copies, holds them already. Parsing a system bundle again was about
 * 20 ms of CPU per context (144 certificates), on every start that calls a POS or an RMS.
 */
function extraFromEnv(): string[] {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (!file) return [];
  if ((globalThis as Record<symbol, unknown>)[Symbol.for('tableside.extraCaAtStart')] === file) return [];
  try {
    return [readFileSync(file, 'utf8')];
  } catch {
    return [];
  }
}

/**
 * A TLS context trusting what Node trusts (its roots, and NODE_EXTRA_CA_CERTS as read at start-up),
 * NODE_EXTRA_CA_CERTS as it is now (tests set it after start) and `extra` (PEM; a `ca` given to
 * undici replaces Node's defaults instead of adding to them), built once per distinct set in a
 * process. Built from Node's default context, whose store of already parsed roots is copied for
 * this context when a certificate is added (the process-wide default trusts nothing more): giving
 * `ca` instead parsed Node's ~140 root certificates again, 30-60 ms of CPU per context (a profile of
 * the sandbox's restart; with NODE_EXTRA_CA_CERTS a system bundle, 66 ms against 28 ms, its own
 * certificates being parsed again here). A context is immutable once built.
 */
export function trustingContext(...extra: string[]): SecureContext {
  const pems = [...extraFromEnv(), ...extra];
  const key = pems.join('\n');
  let context = trustingContexts.get(key);
  if (!context) {
    context = createSecureContext();
    // Each PEM may hold several certificates (a bundle): addCACert adds every one.
    for (const pem of pems) context.context.addCACert(pem);
    trustingContexts.set(key, context);
  }
  return context;
}
