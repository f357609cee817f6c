import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../../test/helpers/cli.ts';

// Issue 17 proof: a project outside the repository installs the packed SDK tarball and type-checks a
// program that uses it; a deliberate type error in it must be reported (so this test can fail).
// Issue 30: that project runs sdk/README.md's walk-throughs as the README says (tsx, "type": "module",
// the sandbox's .tableside linked in) against a sandbox (`tableside serve --sandbox`).

const run = promisify(execFile);
const sdkDir = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const GOOD = `import { createTablesideClient, paginate, unwrap, verifyWebhook, TablesideError, type TablesideEvent } from '@tableside/sdk';

const client = createTablesideClient({ baseUrl: 'https://localhost:8443', clientId: 'id', clientSecret: 'secret', apiKey: 'tsk_x' });

export async function payFirstBill(venueId: string, tableId: string): Promise<number> {
  const bill = unwrap(await client.GET('/v1/pat/venue/{venueId}/table/{tableId}/bill', { params: { path: { venueId, tableId } } }));
  const payment = unwrap(await client.POST('/v1/pat/venue/{venueId}/order/{orderId}/payment', {
    params: { path: { venueId, orderId: bill.orderId } },
    body: { externalReference: 'till-1', type: 'full', amount: bill.totals.totalDue },
  }));
  const status: 'pending' | 'confirmed' | 'failed' = payment.status;
  return status === 'confirmed' ? payment.amount : 0;
}

export async function companyNames(): Promise<string[]> {
  const names: string[] = [];
  for await (const company of paginate(client, '/v1/rms/company', { params: { query: { limit: 10 } } })) names.push(company.name);
  return names;
}

export function onDelivery(headers: Record<string, string>, body: string): string {
  try {
    const event: TablesideEvent = verifyWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2E5bJ0X/Qqs=', headers, body);
    return event.type;
  } catch (err) {
    return err instanceof TablesideError ? String(err.requestId) : 'refused';
  }
}
`;

// Each line is one deliberate mistake the types must catch.
const BAD = `import { createTablesideClient, paginate } from '@tableside/sdk';

const client = createTablesideClient({ baseUrl: 'https://localhost:8443' });
export const a = client.GET('/v1/pat/no-such-path');
export const b = client.POST('/v1/pat/venue/{venueId}/order/{orderId}/payment', { params: { path: { venueId: 'v', orderId: 'o' } }, body: { type: 'full', amount: 1 } });
export const c = paginate(client, '/v1/pat/pos-types');
`;

let dir: string;
let tarball: string;
let serve: ServeProcess | null = null;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tableside-sdk-consumer-'));
  // npm pack runs prepack, which builds dist/ with tsc.
  const { stdout } = await run(npm, ['pack', '--json', '--pack-destination', dir], { cwd: sdkDir, timeout: 60_000 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[')));
  tarball = join(dir, packed.filename);
  const project = join(dir, 'consumer');
  await run('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
    include: ['*.ts'],
  }));
  writeFileSync(join(project, 'good.ts'), GOOD);
  writeFileSync(join(project, 'bad.ts'), BAD);
  const nodeTypes = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@types/node/package.json'), 'utf8')).version;
  const tsxVersion = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('tsx/package.json'), 'utf8')).version;
  // The walk-through's own steps (sdk/README.md): the tarball and tsx; the sandbox's directory linked in.
  await run(npm, ['install', tarball, `@types/node@${nodeTypes}`, `tsx@${tsxVersion}`, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project, timeout: 120_000 });
  serve = await startServe({ TABLESIDE_DATA: join(dir, 'repo', '.tableside'), POS_TIMEOUT_MS: '15000' }, ['serve', '--sandbox'], 120_000);
  symlinkSync(join(dir, 'repo', '.tableside'), join(project, '.tableside'));
}, 300_000);

afterAll(async () => {
  await serve?.stop('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

describe('the packed SDK in a project outside the repository', () => {
  it.each([['bill-and-pay.ts', /: paid \d+(\.\d+)? \(confirmed\), order closed\n$/], ['channel-booking.ts', /^.+: booking [0-9a-f-]{36} confirmed, 2 guests at \S+\n$/]])(
    'runs the walk-through %s as sdk/README.md says: `NODE_EXTRA_CA_CERTS=.tableside/tls.crt npx tsx` against a sandbox',
    async (example, printed) => {
      const project = join(dir, 'consumer');
      writeFileSync(join(project, example), readFileSync(join(sdkDir, 'examples', example), 'utf8'));
      const { stdout } = await run('sh', ['-c', `NODE_EXTRA_CA_CERTS=.tableside/tls.crt npx tsx ${example}`], { cwd: project, timeout: 60_000, env: { ...process.env, NODE_EXTRA_CA_CERTS: '' } });
      expect(stdout).toMatch(printed);
    },
  );

  it('the tarball holds the built ESM, its declarations and the generated types, and no sources or tests', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n').sort();
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/dist/schema.d.ts');
    expect(files).toContain('package/README.md');
    expect(files.filter((f) => /^package\/(src|test|scripts|examples)\//.test(f))).toEqual([]);
  });

  it('loads at run time as an ES module', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', "const m = await import('@tableside/sdk'); console.log(Object.keys(m).sort().join(','))"], { cwd: join(dir, 'consumer') });
    expect(stdout.trim().split(',')).toEqual(expect.arrayContaining(['createTablesideClient', 'paginate', 'unwrap', 'verifyWebhook', 'TablesideError', 'WebhookVerificationError']));
  });

  it('type-checks a program using createTablesideClient, paginate and verifyWebhook, and reports each deliberate type error', async () => {
    const result = await run(process.execPath, [tsc, '--noEmit', '-p', '.'], { cwd: join(dir, 'consumer'), timeout: 60_000 }).then(
      (r) => ({ code: 0, out: r.stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, out: err.stdout }),
    );
    expect(result.code).not.toBe(0);
    const errors = result.out.split('\n').filter((l) => /error TS\d+/.test(l));
    expect(errors.filter((l) => l.startsWith('good.ts')), result.out).toEqual([]);
    // One error on each of bad.ts's lines 4, 5 and 6.
    expect([...new Set(errors.map((l) => /^bad\.ts\((\d+),/.exec(l)?.[1]))].sort(), result.out).toEqual(['4', '5', '6']);
  });
});
