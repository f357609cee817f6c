import type { Command } from 'commander';
import { lines, print, type RunOperatorCommand } from '../lib/cli.ts';

// `tableside channel create`: a booking channel (the operator's, DESIGN 8.4) and its credentials
// (access.service.ts, through the operator's commands).

export function registerChannelCommands(program: Command, operator: RunOperatorCommand<'channel.create'>): void {
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
}
