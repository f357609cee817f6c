#!/usr/bin/env node
// The `tableside` command. Node 20 cannot run TypeScript by itself: the sources are bundled once
// with esbuild (bin/build.mjs, at `npm install` and again whenever a source file changed), so a
// start loads plain JavaScript instead of transpiling every file. Without esbuild (a production
// install without dev dependencies) they are loaded through tsx, as before. `serve` runs its own
// build of the same sources, compiled with a V8 code cache its first start writes (loadBundle).
import { ensureBuilt, loadBundle, serveBundle } from './build.mjs';

// What NODE_EXTRA_CA_CERTS was when Node started, which Node's default TLS context already trusts:
// src/lib/tls.ts (trustingContext) then need not parse the same bundle again for every context.
globalThis[Symbol.for('tableside.extraCaAtStart')] = process.env.NODE_EXTRA_CA_CERTS ?? '';

const entry = await ensureBuilt();
if (entry && process.argv[2] === 'serve') {
  const { exports, saveCodeCache } = loadBundle(serveBundle(entry), 'serve');
  // `serve` runs until stopped: its cache is written once it has started (src/app/service.cli.ts
  // calls this after the listen; a process stopped first writes it as it exits), so it holds the
  // start's code and not what a long run compiled or V8 flushed since.
  globalThis[Symbol.for('tableside.startedUp')] = () => setTimeout(saveCodeCache, 1000).unref();
  process.once('exit', saveCodeCache);
  await exports.main(process.argv);
  saveCodeCache();
} else if (entry) {
  const { main } = await import(entry);
  await main(process.argv);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/main.ts');
  await main(process.argv);
}
