import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../../src/db/db.ts';
import { createSealer } from '../../src/db/sealing-key.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { newSealingKey, seal } from '../../src/lib/sealed.ts';
import { describeEachStore, newStore } from '../helpers/db.ts';

// The sealing key (db/sealing-key.ts): SECRETS_KEY, or else one generated once per kind of secret and
// kept in `settings`, so every process of one store seals and opens alike, and what was sealed
// before opens still.

const clock = new ManualClock('2030-01-02T03:04:05Z');

describeEachStore('the sealing key', (store) => {
  let db: Db;
  beforeAll(async () => {
    db = await newStore(store);
  });
  afterAll(async () => db?.close());

  const settingValue = async (setting: string) =>
    (await sql<{ value: unknown }>`SELECT value FROM settings WHERE key = ${setting}`.execute(db.kysely)).rows[0]?.value;

  it('without SECRETS_KEY, the first sealer keeps a key under its setting; another one (another process) opens what it sealed', async () => {
    const first = createSealer({ db, clock, secretsKey: null, setting: 'test.first' });
    const sealed = await first.seal('rms_secret-1');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('rms_secret');
    const kept = await settingValue('test.first');
    expect(typeof kept).toBe('string');
    expect(Buffer.from(kept as string, 'base64')).toHaveLength(32);
    const second = createSealer({ db, clock, secretsKey: null, setting: 'test.first' });
    expect(await second.open(sealed)).toBe('rms_secret-1');
  });

  it('each setting keeps its own key: a value sealed under one does not open under another', async () => {
    const sealed = await createSealer({ db, clock, secretsKey: null, setting: 'test.a' }).seal('x');
    await expect(createSealer({ db, clock, secretsKey: null, setting: 'test.b' }).open(sealed)).rejects.toThrow();
    expect(await settingValue('test.a')).not.toEqual(await settingValue('test.b'));
  });

  it('a key row as the earlier code wrote it (a JSON string of base64) opens the values sealed under it', async () => {
    const key = newSealingKey();
    await sql`INSERT INTO settings (key, value, updated_at) VALUES ('test.earlier', ${JSON.stringify(key.toString('base64'))}::jsonb, ${clock.now()})`.execute(db.kysely);
    const sealer = createSealer({ db, clock, secretsKey: null, setting: 'test.earlier' });
    expect(await sealer.open(seal(key, 'sealed before'))).toBe('sealed before');
  });

  it('with SECRETS_KEY, values are sealed under it and nothing is kept in the store', async () => {
    const key = newSealingKey();
    const sealer = createSealer({ db, clock, secretsKey: key, setting: 'test.given' });
    expect(await sealer.open(seal(key, 'given'))).toBe('given');
    expect(await sealer.open(await sealer.seal('round trip'))).toBe('round trip');
    expect(await settingValue('test.given')).toBeUndefined();
  });
});
