import { setFlagsFromString } from 'node:v8';

// V8 flags the service sets while it runs (issue 28, bench/README.md). Each is recorded with V8's
// default for bin/tableside.mjs: V8 accepts a code cache only under the flags it was made with, and
// the next start compiles its code before any of these is set again, so `serve`'s code cache
// (bin/build.mjs, loadBundle) is made with every recorded flag back at its default for that moment.
// Without it `serve`'s cache was refused and written again at every start.

type FlagRecord = Map<string, { value: number; v8Default: number }>;

function recorded(): FlagRecord {
  const g = globalThis as Record<symbol, FlagRecord | undefined>;
  return (g[Symbol.for('tableside.v8FlagsSetAtRunTime')] ??= new Map());
}

/** Sets a numeric V8 flag for the rest of the process and records it with V8's default. */
export function setV8FlagAtRunTime(flag: string, value: number, v8Default: number): void {
  setFlagsFromString(`${flag}=${value}`);
  recorded().set(flag, { value, v8Default });
}

/**
 * How much a WebAssembly function runs (V8's "rough approximation of bytes executed") before V8
 * compiles it again with its optimizing compiler: V8's default (V8 11.3, Node 20), and the start's.
 * The embedded store's PGlite is 9 MB of WebAssembly; at V8's budget a start had its functions
 * re-compiled by TurboFan on V8's worker threads, 0.6-0.7 s of CPU in a restart (1.4-1.5 s of a
 * first start) against the main thread's 0.6 s, on two cores taking the main thread's core too. At
 * the start's budget a function is optimized once it has run about 1,000 times as much: during the
 * start hardly any is. The start's budget stays with what was made and run under it until used up
 * once, V8's own applies from then on: a loop made under it was optimized after ~20,000 calls of
 * 1,000 iterations past the start (tenths of a second of its running), against ~60 at V8's budget.
 */
const V8_WASM_TIERING_BUDGET = 1_800_000;
const START_WASM_TIERING_BUDGET = 1_800_000_000;
let holds = 0;

/**
 * Holds back V8's optimizing compiler for WebAssembly made while the service starts; the returned
 * function (call it once) restores V8's budget when no other start in the process holds it.
 */
export function holdWasmTierUp(): () => void {
  if (holds++ === 0) setV8FlagAtRunTime('--wasm-tiering-budget', START_WASM_TIERING_BUDGET, V8_WASM_TIERING_BUDGET);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holds > 0) return;
    setFlagsFromString(`--wasm-tiering-budget=${V8_WASM_TIERING_BUDGET}`);
    recorded().delete('--wasm-tiering-budget');
  };
}
