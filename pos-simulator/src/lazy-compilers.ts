import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

// Fastify's own schema compilers (the same Ajv options, formats and serializers), each route's
// validator and serializer compiled on its first use instead of when the server starts: the sandbox
// runs this simulator, the reference RMS and the Google simulator in the service's process, and
// compiling all their routes was about a second of every `npm start`'s CPU for routes most starts
// never call. Fastify reads a failed validation's `errors` from the function it was given, so the
// wrapper carries them over.

type Factory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type Validate = ((data: unknown) => unknown) & { errors?: unknown };

const buildValidators = AjvCompiler();
const buildSerializers = SerializerSelector();

const buildValidator = (externalSchemas: unknown, ajvOptions: unknown) => {
  const compile = buildValidators(externalSchemas as never, ajvOptions as never);
  return (route: unknown) => {
    let compiled: Validate | undefined;
    const validate: Validate = (data) => {
      compiled ??= compile(route as never) as Validate;
      const result = compiled(data);
      validate.errors = compiled.errors;
      return result;
    };
    validate.errors = null;
    return validate;
  };
};

const buildSerializer = (externalSchemas: unknown, serializerOptions: unknown) => {
  const compile = buildSerializers(externalSchemas as never, serializerOptions as never);
  return (route: unknown) => {
    let compiled: ((data: unknown) => string) | undefined;
    return (data: unknown) => (compiled ??= compile(route as never) as (data: unknown) => string)(data);
  };
};

export const lazyCompilers = { buildValidator, buildSerializer } as unknown as Factory;
