#!/usr/bin/env node
// Runs one TypeScript file through tsx: `node bin/run-ts.mjs bench/run.ts …` (used by npm scripts).
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
const [, , file, ...rest] = process.argv;
process.argv = [process.argv[0], resolve(file), ...rest];
await import(pathToFileURL(resolve(file)).href);
