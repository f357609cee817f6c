// Fixes of our dependencies that their own releases for Node 20 lack, applied to node_modules at
// `npm install` (the `postinstall` script, before `prepare` bundles them). Each is a fix the
// project has released upstream, backported as the exact text it changes: the text is replaced
// only where it is found once as expected; where the fix is there already (a release that has it,
// or a second run) nothing is written; anything else stops the install, so a dependency update
// that moved the code is read by a person instead of running unpatched or patched wrongly.
//
//   node bin/patch-deps.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export const PATCHES = [
  {
    // nodejs/undici#5845, fixed in undici 8 (#5846), which needs Node 22: an HTTP/1.1 request given
    // up while running (our time limits) destroys its socket, and the socket's close puts it back in
    // its client's queue; the client then opened a new connection for it before seeing it was given
    // up. An RMS that began to hang cost a TLS handshake on both sides per given-up lookup, all at
    // once right after a wave's answers (issue 28, bench/README.md). The fix as undici 8 has it.
    pkg: 'undici',
    file: 'lib/dispatcher/client.js',
    find: [
      '    if (request === null) {',
      '      return',
      '    }',
      '',
      "    if (client[kUrl].protocol === 'https:' && client[kServerName] !== request.servername) {",
    ].join('\n'),
    fixed: [
      '    if (request === null) {',
      '      return',
      '    }',
      '',
      '    if (request.aborted) {',
      '      client[kQueue].splice(client[kPendingIdx], 1)',
      '      continue',
      '    }',
      '',
      "    if (client[kUrl].protocol === 'https:' && client[kServerName] !== request.servername) {",
    ].join('\n'),
  },
];

/**
 * Applies each patch under `root`'s node_modules (`check`: only says which need it); returns what it
 * did per patch. Throws when one cannot be applied.
 */
export function patchDeps(root = ROOT, { check = false } = {}) {
  const require = createRequire(join(root, 'package.json'));
  return PATCHES.map((p) => {
    const path = join(dirname(require.resolve(`${p.pkg}/package.json`)), p.file);
    const text = readFileSync(path, 'utf8');
    if (text.includes(p.fixed)) return `${p.pkg}/${p.file}: has the fix`;
    const at = text.indexOf(p.find);
    if (at < 0 || text.indexOf(p.find, at + 1) >= 0) {
      throw new Error(`${p.pkg}/${p.file}: the code to fix is not there as expected (a new version?); see bin/patch-deps.mjs`);
    }
    if (check) return `${p.pkg}/${p.file}: needs the fix`;
    writeFileSync(path, text.slice(0, at) + p.fixed + text.slice(at + p.find.length));
    return `${p.pkg}/${p.file}: patched`;
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    for (const line of patchDeps()) console.log(`patch-deps: ${line}`);
  } catch (err) {
    console.error(`patch-deps: ${err.message}`);
    process.exitCode = 1;
  }
}
