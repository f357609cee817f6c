import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:https';
import { AppError, STATUS_OF, type ErrorKind } from '../lib/errors.ts';
import { adminFile } from './admin-file.ts';
import type { CommandName } from './commands.ts';

/** Asks the server that owns the data directory to run a command (see admin-server.ts). */
export async function runRemoteCommand(dataDir: string, name: CommandName, args: Record<string, unknown>): Promise<unknown> {
  const file = adminFile(dataDir);
  // The owner writes admin.json once it listens; a server that is still starting needs a moment.
  for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
  if (!existsSync(file)) {
    throw new Error(`The data directory ${dataDir} is owned by a running server, but its admin endpoint is not available.`);
  }
  const { port, secret } = JSON.parse(readFileSync(file, 'utf8')) as { port: number; secret: string };
  const ca = readFileSync(join(dataDir, 'tls.crt'), 'utf8');
  const res = await post(port, `/admin/commands/${name}`, { 'content-type': 'application/json', 'x-admin-secret': secret }, JSON.stringify(args), ca);
  const body = res.body as { result?: unknown; error?: { status: number; message: string } };
  if (res.status !== 200) {
    const status = body.error?.status ?? res.status;
    const kind = (Object.keys(STATUS_OF) as ErrorKind[]).find((k) => STATUS_OF[k] === status) ?? 'internal';
    throw new AppError(kind, body.error?.message ?? `admin endpoint answered ${res.status}`);
  }
  return body.result;
}

/**
 * One POST to the admin endpoint over node:https: a CLI command is one request, and loading undici
 * was most of a command's start (a profile of `tableside partner create`: about half its CPU).
 */
function post(port: number, path: string, headers: Record<string, string>, body: string, ca: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', ca, servername: 'localhost', agent: false, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', reject);
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          } catch {
            reject(new Error(`admin endpoint answered ${res.statusCode} with a body that is not JSON`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
