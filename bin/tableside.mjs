#!/usr/bin/env node
// The `tableside` command. Node 20 cannot run TypeScript by itself, so the CLI loads its sources
// through tsx (a runtime dependency): `npx tableside …` works right after `npm install`, with no build.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
await main(process.argv);
