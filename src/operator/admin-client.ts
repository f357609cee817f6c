import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
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
  const dispatcher = new Agent({ connect: { ca, servername: 'localhost' } });
  try {
    const res = await request(`https://127.0.0.1:${port}/admin/commands/${name}`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', 'x-admin-secret': secret },
      body: JSON.stringify(args),
    });
    const body = (await res.body.json()) as { result?: unknown; error?: { status: number; message: string } };
    if (res.statusCode !== 200) {
      const status = body.error?.status ?? res.statusCode;
      const kind = (Object.keys(STATUS_OF) as ErrorKind[]).find((k) => STATUS_OF[k] === status) ?? 'internal';
      throw new AppError(kind, body.error?.message ?? `admin endpoint answered ${res.statusCode}`);
    }
    return body.result;
  } finally {
    await dispatcher.close();
  }
}
