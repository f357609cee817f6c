// Runs the POS simulator without the service's CLI: npx tsx pos-simulator/bin.ts [--port P]
// [--api-key K] [--state-file F] [--json]. `tableside pos-sim` calls the same runPosSim.

import { runPosSim } from './src/cli.ts';

function parse(argv: string[]): { port?: number; apiKey?: string; stateFile?: string; json: boolean } {
  const out: { port?: number; apiKey?: string; stateFile?: string; json: boolean } = { json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--json') out.json = true;
    else if (arg === '--port') {
      const port = Number(value());
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be an integer 0..65535');
      out.port = port;
    } else if (arg === '--api-key') out.apiKey = value();
    else if (arg === '--state-file') out.stateFile = value();
    else throw new Error(`unknown argument ${arg}`);
  }
  return out;
}

try {
  await runPosSim(parse(process.argv.slice(2)));
} catch (err) {
  process.stderr.write(`pos-sim: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
