import type { Command } from 'commander';
import { lines, print, type RunOperatorCommand } from '../lib/cli.ts';

// `tableside partner`, `token` and `key`: partners and their credentials (auth.service.ts, through
// the operator's commands).

type AuthCommand = 'partner.create' | 'partner.grant' | 'token.issue' | 'token.revoke' | 'key.revoke';

export function registerAuthCommands(program: Command, operator: RunOperatorCommand<AuthCommand>): void {
  registerPartnerCommands(program, operator);
  registerTokenCommands(program, operator);

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
}

function registerPartnerCommands(program: Command, operator: RunOperatorCommand<AuthCommand>): void {
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
}

function registerTokenCommands(program: Command, operator: RunOperatorCommand<AuthCommand>): void {
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
}
