// The POS client compiles its answer schemas without checking them against JSON Schema's
// meta-schema (issue 28: that compilation was a third of its first checks in a fresh sandbox
// start), so they are checked here: each is a valid draft-07 schema.
import { expect, it } from 'vitest';
import { newAjv } from '../../src/lib/json-schema.ts';
import * as schemas from '../../src/pos/pos.schemas.ts';

it('every answer schema of the POS client is a valid JSON Schema', () => {
  const ajv = newAjv(false);
  const all = Object.entries(schemas).filter(([, value]) => typeof value === 'object' && value !== null);
  expect(all.map(([name]) => name).sort()).toEqual(
    ['CreatedOrder', 'PosCheck', 'PosItem', 'PosOrder', 'PosOrderHead', 'PosOrderHeads', 'PosOrders', 'PosPaymentState', 'PosTable', 'PosTables', 'UnknownSkus'],
  );
  for (const [name, schema] of all) expect([name, ajv.validateSchema(schema as object), ajv.errors]).toEqual([name, true, null]);
  // The check refuses what is not one.
  expect(ajv.validateSchema({ type: 'object', properties: { id: { type: 'text' } } })).toBe(false);
});
