import { Command, CommanderError, Option } from 'commander';
import { ConfigError, CONFIG_DOC, loadConfig } from './config.ts';
import type { CommandName } from './operator/commands.ts';
import { DataDirLockedError } from './db/lock.ts';
import { AppError } from './lib/errors.ts';

// The `tableside` command, a stable contract that scripts drive: every printing command takes
// --json and then prints exactly one JSON object on stdout and nothing else there; errors go to
// stderr with a non-zero exit code. Heavy modules (the server, the store) are imported only by the commands that
// need them, so a command handed to a running server starts quickly.

function print(json: boolean, value: Record<string, unknown>, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

async function operator(name: CommandName, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { runOperatorCommand } = await import('./app/operator.ts');
  return (await runOperatorCommand(loadConfig(), name, args)) as Record<string, unknown>;
}

const lines = (o: Record<string, unknown>) =>
  Object.entries(o)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
    .join('\n');

export function buildProgram(): Command {
  const program = new Command('tableside')
    .description('Tableside: restaurant reservation and partner-integration service')
    .addHelpText('after', `\nEnvironment:\n${CONFIG_DOC.map(([v, d]) => `  ${v.padEnd(32)} ${d}`).join('\n')}`)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });

  program
    .command('serve')
    .description('run the HTTPS API (sandbox: with the POS simulator and a seeded sandbox partner)')
    .option('--sandbox', 'sandbox mode (same as SANDBOX=1)')
    .action(async (opts: { sandbox?: boolean }) => {
      const config = loadConfig(process.env, opts.sandbox ? { sandbox: true } : {});
      const { startService } = await import('./app/service.ts');
      const service = await startService(config);
      const out = [`Tableside listening on ${service.url} (${service.store.embedded ? `embedded store in ${config.dataDir}` : 'PostgreSQL'})`];
      if (service.sandbox) {
        const s = service.sandbox;
        out.push(
          'Sandbox credentials (also in .tableside/sandbox.json):',
          `  content API key (/v1/rms):        ${s.apiKey}`,
          `  access token (/v1/pat, /v1/pos):  ${s.accessToken}`,
          `  client id / secret (/oauth/token): ${s.clientId} / ${s.clientSecret}`,
          `  venues: ${s.venueIds.length ? s.venueIds.join(', ') : '(none yet)'}`,
          `Try: curl -k ${service.url}/v1/pat/venues -H "Authorization: Bearer ${s.accessToken}"`,
          `Webhooks (docs/webhooks.md): curl -k ${service.url}/v1/webhooks/endpoints -H "Authorization: Bearer ${s.accessToken}" ` +
            `-H 'content-type: application/json' -d '{"url":"https://localhost:9443/hooks","events":["payment.confirmed","order.closed"]}'`,
        );
      }
      process.stderr.write(`${out.join('\n')}\n`);
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          service.log.info({ signal }, 'shutting down');
          void service.close().then(resolve);
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      });
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

  const partner = program.command('partner').description('partners and their venue scope');
  partner
    .command('create')
    .description('create a partner; prints its credentials once')
    .requiredOption('--name <name>', 'partner name')
    .requiredOption('--access <kinds>', 'comma-separated: rms, pat, analytics')
    .option('--json', 'print one JSON object')
    .action(async (opts: { name: string; access: string; json?: boolean }) => {
      const result = await operator('partner.create', { name: opts.name, access: opts.access });
      print(!!opts.json, result, `${lines(result)}\n(secrets are shown only now; store them safely)`);
    });
  partner
    .command('grant')
    .description("put an existing venue in a partner's scope")
    .requiredOption('--partner <id>', 'partner id')
    .requiredOption('--venue <id>', 'venue id')
    .option('--json', 'print one JSON object')
    .action(async (opts: { partner: string; venue: string; json?: boolean }) => {
      const result = await operator('partner.grant', { partner: opts.partner, venue: opts.venue });
      print(!!opts.json, result, `venue ${opts.venue} granted to partner ${opts.partner}`);
    });

  const token = program.command('token').description('access tokens for /v1/pat and /v1/pos');
  token
    .command('issue')
    .description('issue an access token for a partner')
    .requiredOption('--partner <id>', 'partner id')
    .option('--ttl <seconds>', 'lifetime in seconds (default ACCESS_TOKEN_TTL_S, 3600)')
    .option('--json', 'print one JSON object')
    .action(async (opts: { partner: string; ttl?: string; json?: boolean }) => {
      const result = await operator('token.issue', { partner: opts.partner, ttl: opts.ttl });
      print(!!opts.json, result, lines(result));
    });
  token
    .command('revoke')
    .description('revoke an access token')
    .requiredOption('--token <token>', 'the access token')
    .option('--json', 'print one JSON object')
    .action(async (opts: { token: string; json?: boolean }) => {
      const result = await operator('token.revoke', { token: opts.token });
      print(!!opts.json, result, 'token revoked');
    });

  program
    .command('key')
    .description('content API keys')
    .command('revoke')
    .description('revoke a content API key')
    .requiredOption('--key <key>', 'the API key')
    .option('--json', 'print one JSON object')
    .action(async (opts: { key: string; json?: boolean }) => {
      const result = await operator('key.revoke', { key: opts.key });
      print(!!opts.json, result, 'key revoked');
    });

  program
    .command('channel')
    .description('booking channels (the operator’s)')
    .command('create')
    .description('create a booking channel')
    .requiredOption('--name <name>', 'channel name')
    .option('--logo <url>', 'logo URL')
    .option('--protocol <protocol>', 'tableside (the /v1/bc channel API, an API key) or google-v3 (Booking Server v3, Basic auth)', 'tableside')
    .option('--json', 'print one JSON object')
    .action(async (opts: { name: string; logo?: string; protocol: string; json?: boolean }) => {
      const result = await operator('channel.create', { name: opts.name, logo: opts.logo, protocol: opts.protocol });
      const { credentials, ...channel } = result as { credentials: Record<string, string> };
      print(!!opts.json, result, `${lines({ ...channel, ...credentials })}\n(secrets are shown only now; store them safely)`);
    });

  const feeds = program.command('feeds').description("Google's merchant, services and availability feeds of a google-v3 channel");
  feeds
    .command('export')
    .description('write the feeds of a channel as JSON files, one per shard')
    .requiredOption('--channel <id>', 'a google-v3 channel id')
    .requiredOption('--out <dir>', 'directory to write into (created if missing)')
    .option('--shard-size <n>', 'at most n records per availability shard (default 10000)')
    .option('--json', 'print one JSON object')
    .action(async (opts: { channel: string; out: string; shardSize?: string; json?: boolean }) => {
      const { resolve } = await import('node:path');
      const result = await operator('feeds.export', { channel: opts.channel, out: resolve(opts.out), shardSize: opts.shardSize });
      print(!!opts.json, result, lines(result));
    });
  feeds
    .command('validate')
    .description('check a feed set: metadata, shards under one nonce, spots, horizon, duplicates, one service id')
    .argument('<dir>', 'directory of a feed set')
    .option('--json', 'print one JSON object')
    .action(async (dir: string, opts: { json?: boolean }) => {
      const { validateFeedDir, printValidation } = await import('./channels/google-feeds.validate.ts');
      const result = await validateFeedDir(dir);
      process.stdout.write(`${printValidation(result, !!opts.json)}\n`);
      process.exitCode = result.ok ? 0 : 1;
    });

  const venue = program.command('venue').description("a venue's POS connection (the operator's switch)");
  venue
    .command('suspend')
    .description('suspend a venue: pay-at-table answers 404 and analytics omits it until resumed')
    .requiredOption('--venue <id>', 'venue id')
    .option('--json', 'print one JSON object')
    .action(async (opts: { venue: string; json?: boolean }) => {
      const result = await operator('venue.suspend', { venue: opts.venue });
      print(!!opts.json, result, `venue ${opts.venue}: ${result.status} (${result.suspendedReason})`);
    });
  venue
    .command('resume')
    .description('make a suspended venue active again and restart its order sync')
    .requiredOption('--venue <id>', 'venue id')
    .option('--json', 'print one JSON object')
    .action(async (opts: { venue: string; json?: boolean }) => {
      const result = await operator('venue.resume', { venue: opts.venue });
      print(!!opts.json, result, `venue ${opts.venue}: ${result.status}`);
    });

  registerPosCommands(program);
  registerRmsCommands(program);
  return program;
}

function registerPosCommands(program: Command): void {
  program
    .command('pos-sim')
    .description('run the reference POS simulator (partner contract + payment extension)')
    .addOption(new Option('--port <port>', 'port').default('9443'))
    .option('--api-key <key>', 'API key the simulator requires (default: random)')
    .option('--state-file <file>', 'persist the simulator state to this JSON file')
    .option('--json', 'print only the one JSON line')
    .action(async (opts: { port: string; apiKey?: string; stateFile?: string; json?: boolean }) => {
      const { runPosSim } = await import('../pos-simulator/src/cli.ts');
      await runPosSim({ port: Number(opts.port), apiKey: opts.apiKey, json: !!opts.json, stateFile: opts.stateFile });
    });

  program
    .command('pos-check')
    .description('conformance kit: check a POS implementation of the partner contract')
    .requiredOption('--base-url <url>', 'the POS base URL')
    .requiredOption('--api-key <key>', 'the API key it expects')
    .requiredOption('--venue <id>', 'a POS venue (location) id to test against')
    .option('--payments', 'also check the payment extension (docs/pos-partner-contract.md)')
    .option('--sku <sku>', 'a SKU configured for the venue (checks item support)')
    .option('--ca <file>', 'PEM certificate to trust for this POS (a private CA or a self-signed test server)')
    .option('--insecure', 'do not verify the TLS certificate (self-signed test servers)')
    .option('--json', 'print one JSON object')
    .action(async (opts: { baseUrl: string; apiKey: string; venue: string; payments?: boolean; sku?: string; ca?: string; insecure?: boolean; json?: boolean }) => {
      const { posCheckMain } = await import('./pos/check/index.ts');
      const { ca, ...rest } = opts;
      process.exitCode = await posCheckMain({ ...rest, json: !!opts.json, caFile: ca });
    });
}

function registerRmsCommands(program: Command): void {
  program
    .command('rms-sim')
    .description('run the reference RMS (booking-services contract, DESIGN 8.2) with its availability engine')
    .addOption(new Option('--port <port>', 'port').default('9444'))
    .option('--api-key <key>', 'API key the simulator requires (default: random)')
    .option('--state-file <file>', 'persist the simulator state to this JSON file')
    .option('--tableside-url <url>', 'send update notices (and feeds, seated events on request) to this Tableside')
    .option('--tableside-api-key <key>', "the RMS partner's Tableside API key, sent with them")
    .option('--tableside-ca <file>', "PEM certificate to trust for Tableside's")
    .option('--json', 'print only the one JSON line')
    .action(async (opts: { port: string; apiKey?: string; stateFile?: string; tablesideUrl?: string; tablesideApiKey?: string; tablesideCa?: string; json?: boolean }) => {
      const { runRmsSim } = await import('../rms-simulator/src/cli.ts');
      await runRmsSim({
        port: Number(opts.port), apiKey: opts.apiKey, json: !!opts.json, stateFile: opts.stateFile,
        tablesideUrl: opts.tablesideUrl, tablesideApiKey: opts.tablesideApiKey, tablesideCaFile: opts.tablesideCa,
      });
    });

  program
    .command('rms-check')
    .description('conformance kit: check an RMS implementation of the booking-services contract')
    .requiredOption('--base-url <url>', 'the RMS booking-services base URL')
    .requiredOption('--api-key <key>', 'the API key it expects')
    .requiredOption('--venue <id>', 'an RMS venue id to test against (it books and cancels there)')
    .option('--timezone <zone>', "the venue's IANA time zone (checks slot dates exactly)")
    .option('--payment-token <token>', 'a paymentToken the RMS accepts, for venues that ask a card or deposit')
    .option('--days-ahead <n>', 'look for slots from today + n days (default 7)')
    .option('--ca <file>', 'PEM certificate to trust for this RMS (a private CA or a self-signed test server)')
    .option('--insecure', 'do not verify the TLS certificate (self-signed test servers)')
    .option('--json', 'print one JSON object')
    .action(async (opts: { baseUrl: string; apiKey: string; venue: string; timezone?: string; paymentToken?: string; daysAhead?: string; ca?: string; insecure?: boolean; json?: boolean }) => {
      const { rmsCheckMain } = await import('./rms/check/index.ts');
      const { ca, daysAhead, ...rest } = opts;
      const days = daysAhead === undefined ? undefined : Number(daysAhead);
      if (days !== undefined && (!Number.isInteger(days) || days < 0)) throw new Error('--days-ahead must be an integer >= 0');
      process.exitCode = await rmsCheckMain({ ...rest, daysAhead: days, json: !!opts.json, caFile: ca });
    });
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    const message =
      err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof AppError
        ? err.message
        : `${(err as Error)?.message ?? err}`;
    process.stderr.write(`tableside: ${message}\n`);
    if (!(err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof AppError) && process.env.LOG_LEVEL === 'debug') {
      process.stderr.write(`${(err as Error)?.stack}\n`);
    }
    process.exitCode = 1;
  }
}
