import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { newSealingKey, seal, unseal } from '../lib/sealed.ts';
import { storedSealingKey } from './endpoints.repository.ts';

// Signing secrets are used to sign every delivery, so they are sealed (AES-256-GCM, lib/sealed.ts),
// not hashed. The key is SECRETS_KEY, or else one generated once and kept in the store (the same
// rule as the RMS booking-services keys): set SECRETS_KEY in production so that a copy of the
// database alone reveals no secret.

export interface Sealer {
  seal(plain: string): Promise<string>;
  open(sealed: string): Promise<string>;
}

export function createSealer(deps: { db: Pick<Db, 'kysely'>; clock: Clock; secretsKey: Buffer | null }): Sealer {
  let key: Promise<Buffer> | null = deps.secretsKey ? Promise.resolve(deps.secretsKey) : null;
  const get = (): Promise<Buffer> =>
    (key ??= storedSealingKey(deps.db.kysely, newSealingKey().toString('base64'), deps.clock.now())
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
