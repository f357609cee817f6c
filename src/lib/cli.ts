// What every command family of the `tableside` command (each folder's `*.cli.ts`, registered by
// src/main.ts) shares: the CLI contract's output (DESIGN 4: with --json, exactly one JSON object on
// stdout and nothing else there) and the shape of the operator's command runner.

/** Prints a command's result: the JSON object with --json, else the human text. */
export function print(json: boolean, value: Record<string, unknown>, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

/** A result as `key: value` lines, lists joined by commas, undefined fields left out. */
export const lines = (o: Record<string, unknown>) =>
  Object.entries(o)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
    .join('\n');

/**
 * Runs one of the operator's commands (src/operator/commands.ts) where the store is. main.ts hands
 * it to each family, narrowed to the family's own command names: only the composition root may
 * load the services, and the typechecker still refuses a name the operator does not know.
 */
export type RunOperatorCommand<Name extends string> = (name: Name, args: Record<string, unknown>) => Promise<Record<string, unknown>>;
