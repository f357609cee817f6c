import { Option, type Command } from 'commander';

// `tableside pos-sim` (the reference POS simulator, its own app in pos-simulator/) and
// `tableside pos-check` (the conformance kit, check/). Neither needs the store or the server.

export function registerPosCommands(program: Command): void {
  program
    .command('pos-sim')
    .description('run the reference POS simulator (partner contract + payment extension)')
    .addOption(new Option('--port <port>', 'port').default('9443'))
    .option('--api-key <key>', 'API key the simulator requires (default: random)')
    .option('--state-file <file>', 'persist the simulator state to this JSON file')
    .option('--json', 'print only the one JSON line')
    .action(async (opts: { port: string; apiKey?: string; stateFile?: string; json?: boolean }) => {
      const { runPosSim } = await import('../../pos-simulator/src/cli.ts');
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
      const { posCheckMain } = await import('./check/index.ts');
      const { ca, ...rest } = opts;
      process.exitCode = await posCheckMain({ ...rest, json: !!opts.json, caFile: ca });
    });
}
