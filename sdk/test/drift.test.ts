import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.ts';
import { firstDifferences, SCHEMA_FILE, schemaSource } from '../scripts/schema-gen.ts';

// The SDK's types are generated from the served document and checked in (issue 17). This fails
// when they drift: after any change to a route's schema, run `npm run sdk:generate`.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
}, 120_000);
afterAll(async () => app?.close());

describe('sdk/src/schema.d.ts', () => {
  it('is what openapi-typescript makes of the served /openapi.json (else: npm run sdk:generate)', async () => {
    const doc = (await app.service.app.fastify.inject({ method: 'GET', url: '/openapi.json' })).json();
    const generated = await schemaSource(doc);
    const checkedIn = readFileSync(fileURLToPath(new URL(`../../${SCHEMA_FILE}`, import.meta.url)), 'utf8');
    const diff = firstDifferences(checkedIn, generated);
    expect(diff, `${SCHEMA_FILE} is out of date; run \`npm run sdk:generate\`. First differences:\n${diff.join('\n')}`).toEqual([]);
  });
});
