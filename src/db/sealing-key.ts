import { sql } from 'kysely';
import type { Clock } from '../lib/clock.ts';
import { newSealingKey, seal, unseal } from '../lib/sealed.ts';
import type { Db, Executor } from './db.ts';

// Secrets Tableside must send on or sign with (an RMS's booking-services key, a webhook endpoint's
// signing secret) are sealed at rest (lib/sealed.ts). The key is SECRETS_KEY, or else one generated
// once and kept in the store's `settings`, one row per kind of secret: set SECRETS_KEY in
// production so that a copy of the database alone reveals no secret. A new kind of secret takes a
// sealer of its own setting: `createSealer({ db, clock, secretsKey, setting: 'google.sealing_key' })`.

export interface Sealer {
  seal(plain: string): Promise<string>;
  /** Throws when the value was sealed under another key (SECRETS_KEY changed) or altered. */
  open(sealed: string): Promise<string>;
}

export interface SealerOptions {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  /** SECRETS_KEY; null: the key kept in the store under `setting`. */
  secretsKey: Buffer | null;
  /** The `settings` row that keeps the generated key (e.g. `webhooks.sealing_key`); renaming it loses the key. */
  setting: string;
}

export function createSealer(opts: SealerOptions): Sealer {
  let key: Promise<Buffer> | null = opts.secretsKey ? Promise.resolve(opts.secretsKey) : null;
  const get = (): Promise<Buffer> =>
    (key ??= storedSealingKey(opts.db.kysely, opts.setting, opts.clock.now())
      .then((b64) => Buffer.from(b64, 'base64'))
      .catch((err) => {
        key = null; // the database was down: try again next time
        throw err;
      }));
  return {
    seal: async (plain) => seal(await get(), plain),
    open: async (sealed) => unseal(await get(), sealed),
  };
}

/** The key (base64, a JSON string) kept under `setting`, created by the first process that needs it. */
async function storedSealingKey(ex: Executor, setting: string, now: Date): Promise<string> {
  // Read first: the key exists at every start but the first, and the INSERT is a statement more.
  const { rows: found } = await sql<{ value: string }>`SELECT value FROM settings WHERE key = ${setting}`.execute(ex);
  if (found[0]) return found[0].value;
  const candidate = newSealingKey().toString('base64');
  await sql`INSERT INTO settings (key, value, updated_at) VALUES (${setting}, ${JSON.stringify(candidate)}::jsonb, ${now})
            ON CONFLICT (key) DO NOTHING`.execute(ex);
  const { rows } = await sql<{ value: string }>`SELECT value FROM settings WHERE key = ${setting}`.execute(ex);
  return rows[0]!.value;
}
