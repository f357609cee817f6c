import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Secrets Tableside must send on (an RMS's booking-services key) cannot be hashed like the keys it
// issues (secrets.ts): they are sealed with AES-256-GCM instead, so a copy of the table alone does
// not reveal them and a tampered value fails to open rather than sending garbage. Format:
// `v1.<iv>.<tag>.<ciphertext>`, each base64url.

export const SEALING_KEY_BYTES = 32;

export function newSealingKey(): Buffer {
  return randomBytes(SEALING_KEY_BYTES);
}

/** A key given as base64 (SECRETS_KEY); null when it is not 32 bytes. */
export function parseSealingKey(text: string): Buffer | null {
  const key = Buffer.from(text.trim(), 'base64');
  return key.length === SEALING_KEY_BYTES ? key : null;
}

export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** Throws when the value was sealed with another key or altered. */
export function unseal(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) throw new Error('sealed value: unknown format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
