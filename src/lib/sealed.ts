import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Secrets the service must USE later, not only compare (a webhook endpoint's signing secret), cannot
// be stored as hashes like API keys (secrets.ts). They are sealed with AES-256-GCM under a key that is
// not in the database: SECRETS_KEY, or else a key file generated once in the data directory (mode
// 0600). A copy of the database alone (a dump, a backup, a replica) does not reveal them, and GCM's
// tag refuses a sealed value that was altered or moved to another row (the row id is bound in as
// associated data).

const VERSION = 'v1';

export class SealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealError';
  }
}

export interface Sealer {
  /** `v1.<iv>.<tag>.<ciphertext>`, base64url; `bindTo` (a row id) must be given again to open it. */
  seal(plain: string, bindTo: string): string;
  open(sealed: string, bindTo: string): string;
}

/** A sealer over a 32-byte key. */
export function createSealer(key: Buffer): Sealer {
  if (key.length !== 32) throw new SealError('the sealing key must be 32 bytes');
  return {
    seal(plain, bindTo) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(bindTo, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, bindTo) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || body === undefined) throw new SealError('not a sealed value');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(bindTo, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SealError('a sealed secret could not be opened: the sealing key differs from the one it was sealed with (SECRETS_KEY), or the value was altered');
      }
    },
  };
}

/** Parses SECRETS_KEY: 32 bytes as base64 or base64url (44 or 43 characters) or 64 hex digits. */
export function parseSealingKey(text: string): Buffer | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const key = Buffer.from(t.replace(/\+/g, '-').replace(/\//g, '_').replace(/=$/, ''), 'base64url');
    return key.length === 32 ? key : null;
  }
  return null;
}

/** The data directory's sealing key (`secrets.key`), created on first use. */
export function loadOrCreateKeyFile(dataDir: string): Buffer {
  const file = join(dataDir, 'secrets.key');
  if (existsSync(file)) {
    const key = parseSealingKey(readFileSync(file, 'utf8'));
    if (!key) throw new SealError(`${file} does not hold a 32-byte key`);
    return key;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  // 'wx': a second process creating it at the same moment fails here and reads the winner's key.
  try {
    writeFileSync(file, `${key.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return loadOrCreateKeyFile(dataDir);
  }
}

/**
 * The service's sealer: SECRETS_KEY, or the data directory's key file, read on first use (so a CLI
 * command that never seals anything creates no file).
 */
export function lazySealer(config: { secretsKey: string | null; dataDir: string }): Sealer {
  let sealer: Sealer | null = null;
  const get = () => (sealer ??= createSealer(config.secretsKey ? parseSealingKey(config.secretsKey)! : loadOrCreateKeyFile(config.dataDir)));
  return { seal: (plain, bindTo) => get().seal(plain, bindTo), open: (sealed, bindTo) => get().open(sealed, bindTo) };
}
