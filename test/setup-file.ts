import { afterAll } from 'vitest';
import { forgetServices } from './helpers/contract.ts';

// Runs before every test file. Test files share their worker process (vitest.config.ts: no
// isolation, so the app, PGlite's WebAssembly and the compiled schemas load once per worker, not
// once per file); what one file changes in the process must not reach the next one:
// - the environment: files point NODE_EXTRA_CA_CERTS or TABLESIDE_DATA at their own temporary
//   directories, which they delete;
// - the contract checker remembered per origin (test/helpers/contract.ts): a port one file's
//   service used may be another service's in the next file.

const env = { ...process.env };

afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
  forgetServices();
});
