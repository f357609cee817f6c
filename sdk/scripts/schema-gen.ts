import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

// Turns the served OpenAPI document into sdk/src/schema.d.ts. Shared by the generator
// (`npm run sdk:generate`) and the drift test, so both produce byte-identical text.

/** Where the checked-in types live, relative to the repository root. */
export const SCHEMA_FILE = 'sdk/src/schema.d.ts';

/** The server URL written into the types, whatever port the generating run listened on. */
export const CANONICAL_SERVER = 'https://localhost:8443';

/** What varies per run (the port in `servers`) is replaced, so the output depends on the API alone. */
export function normalizeDocument(doc: Record<string, unknown>): OpenAPI3 {
  const copy = structuredClone(doc) as unknown as OpenAPI3;
  if (Array.isArray(copy.servers)) copy.servers = copy.servers.map((s) => ({ ...s, url: CANONICAL_SERVER }));
  return copy;
}

const HEADER = `${COMMENT_HEADER}// Generated from the served /openapi.json by \`npm run sdk:generate\`; sdk/test/drift.test.ts fails when it differs.\n\n`;

export async function schemaSource(doc: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS(normalizeDocument(doc), { silent: true });
  return HEADER + astToString(ast);
}

/** The first lines where two texts differ, as `line N: -old / +new` (empty when equal). */
export function firstDifferences(expected: string, actual: string, max = 5): string[] {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const out: string[] = [];
  for (let i = 0; i < Math.max(a.length, b.length) && out.length < max; i++) {
    if (a[i] !== b[i]) out.push(`line ${i + 1}: checked in ${JSON.stringify(a[i] ?? '<end of file>')}, served ${JSON.stringify(b[i] ?? '<end of file>')}`);
  }
  return out;
}
