import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

// Response serializers, compiled once per schema per process. fast-json-stringify builds each
// route's serializer with an Ajv of its own, about 0.5 s of CPU for the whole API at every app
// start; a process that starts the app more than once (the test suite, a restart in place) reuses
// what it compiled. The route schemas are module constants, so a schema object compiles to the same
// function in every app as long as the shared schemas ($ref targets) and the options are the same:
// both are part of the key.

type BuildSerializer = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>;
type Serializer = (data: unknown) => string;

const compiled = new Map<string, WeakMap<object, Serializer>>();
const selectSerializer = SerializerSelector();

export const buildCachedSerializer: BuildSerializer = (externalSchemas, serializerOpts) => {
  const key = JSON.stringify([externalSchemas ?? null, serializerOpts ?? null]);
  let bySchema = compiled.get(key);
  if (!bySchema) compiled.set(key, (bySchema = new WeakMap()));
  const cache = bySchema;
  const compile = selectSerializer(externalSchemas as never, serializerOpts as never);
  return (routeSchema) => {
    const schema = routeSchema.schema as object;
    let serializer = cache.get(schema);
    if (!serializer) cache.set(schema, (serializer = compile(routeSchema as never) as Serializer));
    return serializer;
  };
};
