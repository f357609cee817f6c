import type { Command } from 'commander';
import { loadConfig, type Config } from '../config.ts';
import { embeddedDbDir, startTemplateCopy } from '../db/template-copy.ts';
import { print, type RunOperatorCommand } from '../lib/cli.ts';
import { sandboxFile } from '../sandbox/ports.ts';
import type { RunningService } from './service.ts';

// `tableside serve` (the process of service.ts) and `tableside migrate`. The service is imported
// only when `serve` runs: the other commands start without loading the server.

export function registerServiceCommands(program: Command, operator: RunOperatorCommand<'migrate'>): void {
  program
    .command('serve')
    .description('run the HTTPS API (sandbox: with the POS simulator and a seeded sandbox partner)')
    .option('--sandbox', 'sandbox mode (same as SANDBOX=1)')
    .action(async (opts: { sandbox?: boolean }) => {
      const config = loadConfig(process.env, opts.sandbox ? { sandbox: true } : {});
      // A new embedded store's copy of the template begins now, in a worker thread, while the
      // service's code loads (db/template-copy.ts); the store takes it under the data directory's lock.
      if (!config.databaseUrl) startTemplateCopy(embeddedDbDir(config.dataDir));
      const { startService } = await import('./service.ts');
      const service = await startService(config);
      process.stderr.write(`${startBanner(service, config).join('\n')}\n`);
      // bin/tableside.mjs writes its code cache for `serve` now that the start's code has run.
      (globalThis as Record<symbol, (() => void) | undefined>)[Symbol.for('tableside.startedUp')]?.();
      await untilStopped(service);
    });

  program
    .command('migrate')
    .description('apply the database migrations (they also run at every start)')
    .option('--json', 'print one JSON object')
    .action(async (opts: { json?: boolean }) => {
      const result = await operator('migrate', {});
      const applied = (result.applied as string[]) ?? [];
      print(!!opts.json, result, applied.length ? `applied: ${applied.join(', ')}` : 'the schema is up to date');
    });
}

/** Where the service listens and, in sandbox mode, the credentials to try it with (stderr: stdout stays the scripts'). */
function startBanner(service: RunningService, config: Config): string[] {
  const out = [`Tableside listening on ${service.url} (${service.store.embedded ? `embedded store in ${config.dataDir}` : 'PostgreSQL'})`];
  const s = service.sandbox;
  if (!s) return out;
  return [
    ...out,
    `Sandbox credentials (also in ${sandboxFile(config.dataDir)}):`,
    `  content API key (/v1/rms):        ${s.apiKey}`,
    `  access token (/v1/pat, /v1/pos):  ${s.accessToken}`,
    `  client id / secret (/oauth/token): ${s.clientId} / ${s.clientSecret}`,
    // Every venue /v1/pat/venues answers: the two POS venues and the seating venue.
    `  pay-at-table venues: ${patVenues(s)}`,
    `Try: curl -k ${service.url}/v1/pat/venues -H "Authorization: Bearer ${s.accessToken}"`,
    `Webhooks (docs/webhooks.md): curl -k ${service.url}/v1/webhooks/endpoints -H "Authorization: Bearer ${s.accessToken}" ` +
      `-H 'content-type: application/json' -d '{"url":"http://localhost:3000/hooks","events":["payment.confirmed","order.closed"]}'` +
      ' (plain http://localhost: the sandbox only)',
  ];
}

function patVenues(s: NonNullable<RunningService['sandbox']>): string {
  const all = [...s.venues.map((v) => `${v.id} (${v.name})`), ...(s.seating ? [`${s.seating.venueId} (${s.seating.externalId}, seating)`] : [])];
  return all.length ? all.join(', ') : '(none yet)';
}

/** Runs until SIGTERM or SIGINT, then shuts the service down in order. */
function untilStopped(service: RunningService): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      service.log.info({ signal }, 'shutting down');
      void service.close().then(resolve);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}
