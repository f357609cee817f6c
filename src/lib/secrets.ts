import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

// Secrets (API keys, client secrets, access tokens) are random, shown once, and stored only as
// SHA-256 hashes. They carry 256 bits of entropy, so an unsalted hash is safe to index and look up.

export type SecretKind = 'apiKey' | 'accessToken' | 'clientSecret' | 'clientId';

const PREFIX: Record<SecretKind, string> = {
  apiKey: 'tsk_',
  accessToken: 'tat_',
  clientSecret: 'tcs_',
  clientId: 'tci_',
};

export function newSecret(kind: SecretKind): string {
  const bytes = kind === 'clientId' ? 12 : 32;
  return PREFIX[kind] + randomBytes(bytes).toString('base64url');
}

export function hashSecret(secret: string): string {
  // One-shot: a Hash object per call was ~2.5% of the serve's main thread on a channel's
  // availability lookup, which hashes its key at every request (issue 28, profiled).
  return hash('sha256', secret, 'hex');
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A secret's shape: its prefix and a base64url body. Anything else is malformed, not merely unknown. */
export function looksLike(kind: SecretKind, value: string): boolean {
  const prefix = PREFIX[kind];
  return value.startsWith(prefix) && /^[A-Za-z0-9_-]{16,128}$/.test(value.slice(prefix.length));
}
