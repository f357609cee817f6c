import type { Command } from 'commander';
import { lines, print, type RunOperatorCommand } from '../lib/cli.ts';

// `tableside feeds export` (google-feeds.service.ts, through the operator's commands) and
// `tableside feeds validate` (google-feeds.validate.ts, on files alone: no store, no server).

export function registerFeedsCommands(program: Command, operator: RunOperatorCommand<'feeds.export'>): void {
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
      // Absolute: a server that owns the store may run the command, from its own working directory.
      const result = await operator('feeds.export', { channel: opts.channel, out: resolve(opts.out), shardSize: opts.shardSize });
      print(!!opts.json, result, lines(result));
    });
  feeds
    .command('validate')
    .description('check a feed set: metadata, shards under one nonce, spots, horizon, duplicates, one service id')
    .argument('<dir>', 'directory of a feed set')
    .option('--json', 'print one JSON object')
    .action(async (dir: string, opts: { json?: boolean }) => {
      const { validateFeedDir, printValidation } = await import('./google-feeds.validate.ts');
      const result = await validateFeedDir(dir);
      process.stdout.write(`${printValidation(result, !!opts.json)}\n`);
      process.exitCode = result.ok ? 0 : 1;
    });
}
