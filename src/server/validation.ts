import type { ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { newAjv } from '../lib/json-schema.ts';

// Request validation. Query strings and path parameters arrive as text and are coerced to the
// schema's types; JSON bodies are not coerced, so `"amount": "10"` is a wrong type (DES-024).
// allErrors so a 400 names every bad field, not only the first (ERR-03); bodies are capped at
// 1 MiB, which bounds the cost of that.

const textAjv = newAjv(true);
const bodyAjv = newAjv(false);

/**
 * Each validator is compiled on its route's first request, not when the app starts: compiling the
 * whole API's (about 300 schemas) was most of a second of the start's CPU, and a sandbox or a CLI-driven
 * process uses a few routes. Fastify reads a failed validation's `errors` from the function it was
 * given, so the wrapper carries them over. ajv caches by schema object: an app built again in the
 * same process (the tests) reuses what the first compiled.
 */
export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  let compiled: ValidateFunction | undefined;
  const validate = (data: unknown) => {
    compiled ??= ajv.compile(schema as object);
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
};

