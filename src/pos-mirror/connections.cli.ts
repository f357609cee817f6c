import type { Command } from 'commander';
import { print, type RunOperatorCommand } from '../lib/cli.ts';

// `tableside venue suspend|resume`: the operator's switch on a venue's POS connection
// (connections.service.ts, through the operator's commands).

export function registerVenueCommands(program: Command, operator: RunOperatorCommand<'venue.suspend' | 'venue.resume'>): void {
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
}
