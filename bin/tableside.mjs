#!/usr/bin/env node
// The `tableside` command. Node 20 cannot run TypeScript by itself: the sources are bundled once
// with esbuild (bin/build.mjs, at `npm install` and again whenever a source file changed), so a
// start loads plain JavaScript instead of transpiling every file. Without esbuild (a production
// install without dev dependencies) they are loaded through tsx, as before. The bundle is compiled
// with a V8 code cache per command (loadBundle), written by the command's first run of a build.
import { ensureBuilt, loadBundle } from './build.mjs';

// What NODE_EXTRA_CA_CERTS was when Node started, which Node's default TLS context already trusts:
// src/lib/tls.ts (trustingContext) then need not parse the same bundle again for every context.
globalThis[Symbol.for('tableside.extraCaAtStart')] = process.env.NODE_EXTRA_CA_CERTS ?? '';

const entry = await ensureBuilt();
if (entry) {
  // One cache per command: `serve` compiles the service, `partner create` a request to it.
  const command = /^[a-z][a-z0-9-]*$/.test(process.argv[2] ?? '') ? process.argv[2] : 'other';
  const { exports, saveCodeCache } = loadBundle(entry, command);
  // `serve` runs until stopped: its cache is written once it has started (src/app/service.cli.ts
  // calls this after the listen; a process stopped first writes it as it exits), so it holds the
  // start's code and not what a long run compiled or V8 flushed since.
  globalThis[Symbol.for('tableside.startedUp')] = () => setTimeout(saveCodeCache, 1000).unref();
  process.once('exit', saveCodeCache);
  await exports.main(process.argv);
  saveCodeCache();
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/main.ts');
  await main(process.argv);
}
