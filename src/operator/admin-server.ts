import { randomBytes, timingSafeEqual } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { AppError } from '../lib/errors.ts';
import type { TlsMaterial } from '../lib/tls.ts';
import { adminFile } from './admin-file.ts';
import { isCommandName, runCommand, type CommandDeps } from './commands.ts';

// While a server owns the embedded data directory, no other process may open the store, so the CLI
// hands its command to the server through this endpoint: HTTPS on 127.0.0.1 only, a random port,
// and a secret that is written with the port to admin.json (mode 0600) in the data directory. Only
// someone who can read the data directory can use it (DES-065).

const MAX_BODY = 64 * 1024;

export interface AdminServer {
  port: number;
  close(): Promise<void>;
}

export async function startAdminServer(opts: { dataDir: string; tls: TlsMaterial; deps: CommandDeps; log: Logger }): Promise<AdminServer> {
  const secret = randomBytes(32).toString('base64url');
  const expected = Buffer.from(secret);

  const server = https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, (req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const given = Buffer.from(String(req.headers['x-admin-secret'] ?? ''));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      req.resume();
      return reply(401, { error: { status: 401, message: 'admin secret missing or wrong' } });
    }
    const match = /^\/admin\/commands\/([a-z.-]+)$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match || !isCommandName(match[1])) {
      req.resume();
      return reply(404, { error: { status: 404, message: 'no such admin command' } });
    }
    const name = match[1];
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', async () => {
      try {
        const args = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
        const result = await runCommand(name, args, opts.deps);
        opts.log.info({ command: name }, 'admin command run');
        reply(200, { result });
      } catch (err) {
        const status = err instanceof AppError ? err.status : 500;
        if (status >= 500) opts.log.error({ err, command: name }, 'admin command failed');
        reply(status, { error: { status, message: err instanceof AppError ? err.message : 'the command failed; see the server log' } });
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  writeFileSync(adminFile(opts.dataDir), JSON.stringify({ port, secret, pid: process.pid }), { mode: 0o600 });

  return {
    port,
    async close() {
      rmSync(adminFile(opts.dataDir), { force: true });
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
