import type { ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { newAjv } from '../lib/json-schema.ts';

// Request validation. Query strings and path parameters arrive as text and are coerced to the
// schema's types; JSON bodies are not coerced, so `"amount": "10"` is a wrong type (DES-024).
// allErrors so a 400 names every bad field, not only the first (ERR-03); bodies are capped at
// 1 MiB, which bounds the cost of that.

const textAjv = newAjv(true);
const bodyAjv = newAjv(false);

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ValidateFunction;
};

