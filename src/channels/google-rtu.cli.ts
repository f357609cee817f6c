import type { Command } from 'commander';
import { badRequest } from '../lib/errors.ts';
import { lines, print, type RunOperatorCommand } from '../lib/cli.ts';

// `tableside channel google-rtu` and `tableside channel google-rtu-log` (google-rtu.service.ts,
// through the operator's commands): Google's real-time updates of a google-v3 channel (DESIGN 8.7b).
// The key file is read here and handed over as text, so a server that owns the store needs no access
// to the operator's file; nothing printed ever carries the private key.

type Names = 'channel.google-rtu' | 'channel.google-rtu-log';

export function registerGoogleRtuCommands(program: Command, operator: RunOperatorCommand<Names>): void {
  const channel = program.commands.find((c) => c.name() === 'channel') ?? program.command('channel');
  channel
    .command('google-rtu')
    .description("configure Google's real-time updates (Maps Booking API) of a google-v3 channel")
    .requiredOption('--channel <id>', 'a google-v3 channel id')
    .option('--partner-id <n>', "the channel's Google partner id")
    .option('--service-account <file>', 'the JSON key file of the Google service account (its private key is stored sealed)')
    .option('--api-base <url>', 'where the Maps Booking API is (default https://mapsbooking.googleapis.com; a local simulator in tests)')
    .option('--disable', 'stop sending real-time updates for this channel')
    .option('--json', 'print one JSON object')
    .action(async (opts: { channel: string; partnerId?: string; serviceAccount?: string; apiBase?: string; disable?: boolean; json?: boolean }) => {
      let serviceAccount: string | undefined;
      if (opts.serviceAccount !== undefined) {
        const { readFile } = await import('node:fs/promises');
        serviceAccount = await readFile(opts.serviceAccount, 'utf8').catch((err: NodeJS.ErrnoException) => {
          throw badRequest(`--service-account: cannot read ${opts.serviceAccount} (${err.code ?? err.message})`);
        });
      }
      const result = await operator('channel.google-rtu', {
        channel: opts.channel, partnerId: opts.partnerId, serviceAccount, apiBase: opts.apiBase, disable: opts.disable === true,
      });
      print(!!opts.json, result, lines(result));
    });
  channel
    .command('google-rtu-log')
    .description("the last attempts to send a google-v3 channel's real-time updates, newest first")
    .requiredOption('--channel <id>', 'a google-v3 channel id')
    .option('--limit <n>', 'how many (default 50, at most 500)')
    .option('--json', 'print one JSON object')
    .action(async (opts: { channel: string; limit?: string; json?: boolean }) => {
      const result = await operator('channel.google-rtu-log', { channel: opts.channel, limit: opts.limit });
      const attempts = result.attempts as Array<Record<string, unknown>>;
      const human = attempts.length === 0
        ? 'no attempts yet'
        : attempts.map((a) => [a.at, a.kind, a.target, a.status, a.responseCode ?? '-', a.answer ?? ''].join('  ')).join('\n');
      print(!!opts.json, result, human);
    });
}
