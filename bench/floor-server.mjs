// The start benches' floor (bench/start.ts): the least a server of this stack does before its first
// 200, a bare Fastify HTTPS server opening PGlite in a data directory (initdb when it is new) and
// answering /healthz after a SELECT 1. Plain JavaScript, nothing compiled. Env: PORT, TABLESIDE_DATA.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import Fastify from 'fastify';

const [certFile, keyFile] = process.argv.slice(2);
const db = await PGlite.create({ dataDir: join(process.env.TABLESIDE_DATA, 'pgdata') });
const app = Fastify({ https: { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') } });
app.get('/healthz', async () => (await db.query('SELECT 1'), { status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => db.close()).then(() => process.exit(0)));
