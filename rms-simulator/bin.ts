// Runs the reference RMS without the service's CLI: npx tsx rms-simulator/bin.ts [--port P]
// [--api-key K] [--state-file F] [--tableside-url URL --tableside-api-key K [--tableside-ca FILE]] [--json].
// `tableside rms-sim` calls the same runRmsSim.

import { parseArgs } from 'node:util';
import { runRmsSim } from './src/cli.ts';

try {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      port: { type: 'string' },
      'api-key': { type: 'string' },
      'state-file': { type: 'string' },
      'tableside-url': { type: 'string' },
      'tableside-api-key': { type: 'string' },
      'tableside-ca': { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new Error('--port must be an integer 0..65535');
  await runRmsSim({
    port,
    apiKey: values['api-key'],
    stateFile: values['state-file'],
    tablesideUrl: values['tableside-url'],
    tablesideApiKey: values['tableside-api-key'],
    tablesideCaFile: values['tableside-ca'],
    json: values.json ?? false,
  });
} catch (err) {
  process.stderr.write(`rms-sim: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
