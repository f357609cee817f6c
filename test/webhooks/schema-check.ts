import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { WebhookEventDoc } from '../../src/webhooks/events.schemas.ts';

// Delivered webhook bodies against their declared schemas (src/webhooks/events.schemas.ts), by a
// plain Ajv with ajv-formats (the custom format names are declared without a check: their enums and
// patterns say what they accept). Strict: a field the schema does not declare fails too.

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** The schema with `additionalProperties: false` on every object that lists its properties. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = closed(v);
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** A strict validator of delivered bodies against the schemas of `docs` (by event type). */
export function validators(docs: Record<string, WebhookEventDoc>): (type: string, body: unknown) => string[] {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
  addFormats(ajv);
  for (const name of ['iso-country', 'iso-currency', 'iso-language', 'iana-timezone', 'iso-date-or-date-time']) ajv.addFormat(name, true);
  ajv.addKeyword({ keyword: 'x-problem', schemaType: 'string' });
  const compiled = new Map<string, ValidateFunction>();
  for (const [type, doc] of Object.entries(docs)) compiled.set(type, ajv.compile(closed(JSON.parse(JSON.stringify(doc.schema))) as object));
  return (type, body) => {
    const validate = compiled.get(type);
    if (!validate) return [`no schema declared for ${type}`];
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  };
}

