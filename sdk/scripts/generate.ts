// `npm run sdk:generate`: starts the service in-process on a throw-away embedded store (no sandbox,
// no jobs), reads /openapi.json and writes sdk/src/schema.d.ts with openapi-typescript.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startService } from '../../src/app/service.ts';
import { loadConfig } from '../../src/config.ts';
import { SCHEMA_FILE, schemaSource } from './schema-gen.ts';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const dataDir = mkdtempSync(join(tmpdir(), 'tableside-sdk-gen-'));
try {
  const config = loadConfig({ LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', dataDir, databaseUrl: null });
  const service = await startService(config, { startJobs: false });
  let doc: Record<string, unknown>;
  try {
    doc = (await service.app.fastify.inject({ method: 'GET', url: '/openapi.json' })).json();
  } finally {
    await service.close();
  }
  const out = join(root, SCHEMA_FILE);
  const source = await schemaSource(doc);
  writeFileSync(out, source);
  console.log(`wrote ${SCHEMA_FILE}: ${Object.keys(doc.paths as object).length} paths, ${source.split('\n').length} lines`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
