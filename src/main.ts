import { Command, CommanderError } from 'commander';
import { registerServiceCommands } from './app/service.cli.ts';
import { registerAuthCommands } from './auth/auth.cli.ts';
import { registerChannelCommands } from './channels/access.cli.ts';
import { registerFeedsCommands } from './channels/google-feeds.cli.ts';
import { registerGoogleRtuCommands } from './channels/google-rtu.cli.ts';
import { ConfigError, CONFIG_DOC, loadConfig } from './config.ts';
import { DataDirLockedError } from './db/lock.ts';
import { AppError } from './lib/errors.ts';
import type { CommandName } from './operator/commands.ts';
import { registerVenueCommands } from './pos-mirror/connections.cli.ts';
import { registerPosCommands } from './pos/pos.cli.ts';
import { registerRmsCommands } from './rms/rms.cli.ts';

// The `tableside` command, a stable contract that scripts drive: every printing command takes
// --json and then prints exactly one JSON object on stdout and nothing else there; errors go to
// stderr with a non-zero exit code. Each command family is declared beside the service it drives
// (`*.cli.ts`); heavy modules (the server, the store) are imported only by the commands that need
// them, so a command handed to a running server starts quickly.

async function operator(name: CommandName, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { runOperatorCommand } = await import('./app/operator.ts');
  return (await runOperatorCommand(loadConfig(), name, args)) as Record<string, unknown>;
}

export function buildProgram(): Command {
  const program = new Command('tableside')
    .description('Tableside: restaurant reservation and partner-integration service')
    .addHelpText('after', `\nEnvironment:\n${CONFIG_DOC.map(([v, d]) => `  ${v.padEnd(32)} ${d}`).join('\n')}`)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });

  // In this order: `tableside --help` lists them so.
  registerServiceCommands(program, operator);
  registerAuthCommands(program, operator);
  registerChannelCommands(program, operator);
  registerGoogleRtuCommands(program, operator);
  registerFeedsCommands(program, operator);
  registerVenueCommands(program, operator);
  registerPosCommands(program);
  registerRmsCommands(program);
  return program;
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
