#!/usr/bin/env node
// The `tableside` command. Node 20 cannot run TypeScript by itself: the sources are bundled once
// with esbuild (bin/build.mjs, at `npm install` and again whenever a source file changed), so a
// start loads plain JavaScript instead of transpiling every file. Without esbuild (a production
// install without dev dependencies) they are loaded through tsx, as before.
import { ensureBuilt } from './build.mjs';

// What NODE_EXTRA_CA_CERTS was when Node started, which Node's default TLS context already trusts:
// src/lib/tls.ts (trustingContext) then need not parse the same bundle again for every context.
globalThis[Symbol.for('tableside.extraCaAtStart')] = process.env.NODE_EXTRA_CA_CERTS ?? '';

const entry = await ensureBuilt();
if (entry) {
  const { main } = await import(entry);
  await main(process.argv);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/main.ts');
  await main(process.argv);
}
