import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCertFile } from '../../test/helpers/http.ts';
import { startSdkWorld, type SdkWorld } from './world.ts';

// sdk/README.md's walk-throughs are the files in sdk/examples/, included verbatim (checked here), and
// run here as written: a separate Node process, in a directory whose .tableside/ is a running
// sandbox's data directory (what `npm start` leaves), trusting its certificate via
// NODE_EXTRA_CA_CERTS, importing `@tableside/sdk` (the workspace package, from source).

const run = promisify(execFile);
const sdkDir = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(`${sdkDir}/README.md`, 'utf8');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const EXAMPLES = ['bill-and-pay.ts', 'channel-booking.ts'];

let world: SdkWorld;
beforeAll(async () => {
  world = await startSdkWorld();
}, 180_000);
afterAll(async () => world?.close());

async function runExample(name: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--conditions=tableside-source', '--import', tsx, `${sdkDir}/examples/${name}`], {
    cwd: world.dir,
    env: { ...process.env, NODE_EXTRA_CA_CERTS: testCertFile() },
    timeout: 60_000,
  });
  return stdout;
}

describe('sdk/README.md', () => {
  it.each(EXAMPLES)('shows examples/%s verbatim in a ts block', (name) => {
    const code = readFileSync(`${sdkDir}/examples/${name}`, 'utf8').trim();
    expect(readme).toContain('```ts\n' + code + '\n```');
  });

  it('the bill-and-pay walk-through pays an open bill in full: one confirmed payment, the order closed', async () => {
    const out = await runExample('bill-and-pay.ts');
    expect(out).toMatch(/: paid \d+(\.\d+)? \(confirmed\), order closed\n$/);
    const { rows } = await sql<{ status: string }>`SELECT status FROM payments WHERE external_reference LIKE 'till-%'`.execute(world.app.db.kysely);
    expect(rows).toEqual([{ status: 'confirmed' }]);
  });

  it('the channel booking walks the channel’s venues and books a table for two: one confirmed booking', async () => {
    const out = await runExample('channel-booking.ts');
    expect(out).toMatch(/^.+: booking [0-9a-f-]{36} confirmed, 2 guests at \S+\n$/);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM bookings WHERE contact::text LIKE '%ada@example.com%'`.execute(world.app.db.kysely);
    expect(rows[0].n).toBe(1);
  });
});
