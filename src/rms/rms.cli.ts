import { Option, type Command } from 'commander';

// `tableside rms-sim` (the reference RMS, its own app in rms-simulator/) and `tableside rms-check`
// (the conformance kit, check/). Neither needs the store or the server.

export function registerRmsCommands(program: Command): void {
  program
    .command('rms-sim')
    .description('run the reference RMS (booking-services contract, DESIGN 8.2) with its availability engine')
    .addOption(new Option('--port <port>', 'port').default('9444'))
    .option('--api-key <key>', 'API key the simulator requires (default: random)')
    .option('--state-file <file>', 'persist the simulator state to this JSON file')
    .option('--tableside-url <url>', 'send update notices (and feeds, seated events on request) to this Tableside')
    .option('--tableside-api-key <key>', "the RMS partner's Tableside API key, sent with them")
    .option('--tableside-ca <file>', "PEM certificate to trust for Tableside's")
    .option('--http2', 'also offer HTTP/2 (by ALPN; HTTP/1.1 still answers)')
    .option('--json', 'print only the one JSON line')
    .action(async (opts: { port: string; apiKey?: string; stateFile?: string; tablesideUrl?: string; tablesideApiKey?: string; tablesideCa?: string; http2?: boolean; json?: boolean }) => {
      const { runRmsSim } = await import('../../rms-simulator/src/cli.ts');
      await runRmsSim({
        port: Number(opts.port), apiKey: opts.apiKey, json: !!opts.json, stateFile: opts.stateFile,
        tablesideUrl: opts.tablesideUrl, tablesideApiKey: opts.tablesideApiKey, tablesideCaFile: opts.tablesideCa, http2: !!opts.http2,
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
      const { rmsCheckMain } = await import('./check/index.ts');
      const { ca, daysAhead, ...rest } = opts;
      const days = daysAhead === undefined ? undefined : Number(daysAhead);
      if (days !== undefined && (!Number.isInteger(days) || days < 0)) throw new Error('--days-ahead must be an integer >= 0');
      process.exitCode = await rmsCheckMain({ ...rest, daysAhead: days, json: !!opts.json, caFile: ca });
    });
}
