import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { startSimulator } from '../../pos-simulator/src/index.ts';
import { jsonOf, runCli, startServe, type ServeProcess } from './cli.ts';
import { createSchema, dropSchema, newSchemaName, postgresUrl, urlWithSchema } from './db.ts';
import { HttpClient, testCertFile, testTls } from './http.ts';

// Several `tableside serve` processes sharing one PostgreSQL schema, with a POS simulator behind
// POS types 'sim' (immediate) and 'sim-deferred', a pay-at-table partner and its token. Everything
// is stopped and dropped when the test ends. PostgreSQL only (describePostgres).

export async function startCluster(count: number, env: Record<string, string> = {}) {
  const schema = newSchemaName();
  await createSchema(schema);
  const url = urlWithSchema(postgresUrl()!, schema);
  const tls = testTls();
  const sim = await startSimulator({ tls: { key: tls.key, cert: tls.cert } });
  const dir = mkdtempSync(join(tmpdir(), 'tableside-cluster-'));
  const posTypesFile = join(dir, 'pos-types.json');
  writeFileSync(posTypesFile, JSON.stringify([
    { code: 'sim', name: 'Simulator', baseUrl: sim.baseUrl, apiKey: sim.apiKey, caFile: testCertFile(), billRetrieval: true, paymentForwarding: true, paymentConfirmation: 'immediate' },
    { code: 'sim-deferred', name: 'Simulator (deferred)', baseUrl: sim.baseUrl, apiKey: sim.apiKey, caFile: testCertFile(), billRetrieval: true, paymentForwarding: true, paymentConfirmation: 'deferred' },
  ]));
  const baseEnv = { DATABASE_URL: url, POS_TYPES: posTypesFile, AUTH_FAILURE_LIMIT_PER_MIN: '100000', JOB_POLL_MS: '200', ...env };
  const servers: ServeProcess[] = [];
  const clients: HttpClient[] = [];
  for (let i = 0; i < count; i++) {
    const data = mkdtempSync(join(tmpdir(), `tableside-node${i}-`));
    servers.push(await startServe({ ...baseEnv, TABLESIDE_DATA: data }));
    clients.push(new HttpClient(servers[i].url, readFileSync(join(data, 'tls.crt'), 'utf8')));
  }
  onTestFinished(async () => {
    for (const c of clients) await c.close();
    for (const s of servers) await s.stop('SIGKILL');
    await sim.close();
    await dropSchema(schema);
  });
  const partner = jsonOf(await runCli(['partner', 'create', '--name', 'cluster', '--access', 'pat', '--json'], { DATABASE_URL: url }));
  const { accessToken } = jsonOf(await runCli(['token', 'issue', '--partner', partner.partnerId, '--json'], { DATABASE_URL: url }));
  return { url, sim, servers, clients, token: accessToken, baseEnv };
}
