import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

// Response serializers, compiled once per schema per process, on first use. fast-json-stringify builds each
// route's serializer with an Ajv of its own, about 0.3 s of CPU for the whole API at every app
// start; a process that starts the app more than once (the test suite, a restart in place) reuses
// what it compiled. The route schemas are module constants, so a schema object compiles to the same
// function in every app as long as the shared schemas ($ref targets) and the options are the same:
// both are part of the key.

type BuildSerializer = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>;
type Serializer = (data: unknown) => string;
type Schema = Record<string, unknown>;

const compiled = new Map<string, WeakMap<object, Serializer>>();
const selectSerializer = SerializerSelector();

export const buildCachedSerializer: BuildSerializer = (externalSchemas, serializerOpts) => {
  const key = JSON.stringify([externalSchemas ?? null, serializerOpts ?? null]);
  let bySchema = compiled.get(key);
  if (!bySchema) compiled.set(key, (bySchema = new WeakMap()));
  const cache = bySchema;
  const compile = selectSerializer(externalSchemas as never, serializerOpts as never);
  // Compiled on the first answer that uses it, not at the app's start (validation.ts says why).
  return (routeSchema) => {
    const schema = routeSchema.schema as object;
    let serializer = cache.get(schema);
    if (serializer) return serializer;
    let built: Serializer | undefined;
    serializer = (data) => {
      built ??= compile({ ...routeSchema, schema: forSerialization(schema) } as never) as Serializer;
      return built(data);
    };
    cache.set(schema, serializer);
    return serializer;
  };
};

const isPlainNull = (s: unknown) => typeof s === 'object' && s !== null && (s as Schema).type === 'null' && Object.keys(s).length === 1;
/** What buildValue serializes on its straight path: no combinator or reference to resolve first. */
const isStraight = (s: unknown) =>
  typeof s === 'object' && s !== null && !Array.isArray(s) && ['anyOf', 'oneOf', 'allOf', '$ref', 'if'].every((k) => !(k in (s as Schema)));

/**
 * The schema as the serializer needs it. A nullable field is `anyOf: [X, {type: 'null'}]` in the
 * document (Nullable in server/schemas.ts), and fast-json-stringify picks an anyOf branch by running
 * Ajv on the value, every pattern, format and length included: a page of ten venues ran about 250
 * such validations to write its nulls, a page of closed orders more. Written as X with
 * `nullable: true`, the serializer tests for null and writes X otherwise. A serializer validates
 * nothing (the other fields were never checked either): the answers' shapes are checked against
 * the document by the tests (test/helpers/contract.ts), not at run time.
 */
export function forSerialization(node: unknown): any {
  if (Array.isArray(node)) return node.map(forSerialization);
  if (typeof node !== 'object' || node === null) return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node)) out[k] = forSerialization(v);
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const nullAt = anyOf.findIndex(isPlainNull);
    const other = anyOf[1 - nullAt];
    if (nullAt !== -1 && isStraight(other) && (other as Schema).type !== undefined && (other as Schema).const === undefined) {
      const { anyOf: _anyOf, ...siblings } = out;
      return { ...siblings, ...(other as Schema), nullable: true };
    }
  }
  return out;
}
