// The baseline: a bare Fastify route over HTTPS with the same certificate, in its own process like
// the service. Prints its URL on stdout once it listens.
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';

const [certFile, keyFile] = process.argv.slice(2);
const app = Fastify({ https: { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') } });
const body = { orderId: '01a20143-2f61-7728-9d79-82f1e690a0e5', status: 'open', totals: { total: 73.65, totalDue: 73.65 } };
app.get('/hello', async () => body);
app.post('/hello', async () => body);
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as { port: number };
process.stdout.write(`https://127.0.0.1:${port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
