import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { Nullable } from '../../src/server/schemas.ts';
import { buildCachedSerializer, forSerialization } from '../../src/server/serialization.ts';

// Response serializers get nullable fields as `nullable: true` instead of an anyOf that
// fast-json-stringify would settle with Ajv on every value (src/server/serialization.ts).

const Shape = Type.Object({
  name: Nullable(Type.String({ maxLength: 5, pattern: '^[a-z]+$' })),
  at: Nullable(Type.String({ format: 'date-time' })),
  count: Nullable(Type.Integer({ minimum: 0, maximum: 10 })),
  brand: Nullable(Type.Object({ id: Type.String(), name: Type.String() })),
  tags: Type.Array(Nullable(Type.String())),
  either: Type.Union([Type.String(), Type.Integer()]),
});

describe('response serialization', () => {
  it('writes a nullable field as its own schema with nullable: true, and leaves other unions alone', () => {
    const s = forSerialization(Shape);
    expect(s.properties.name).toEqual({ type: 'string', maxLength: 5, pattern: '^[a-z]+$', nullable: true });
    expect(s.properties.brand).toMatchObject({ type: 'object', nullable: true, properties: { id: { type: 'string' } } });
    expect(s.properties.tags.items).toEqual({ type: 'string', nullable: true });
    expect(s.properties.either.anyOf).toHaveLength(2);
  });

  it('serializes values and nulls as JSON.stringify does', () => {
    const write = buildCachedSerializer({}, {})({ schema: Shape, method: 'GET', url: '/', httpStatus: '200' }) as (v: unknown) => string;
    for (const value of [
      { name: 'ab', at: '2026-01-01T00:00:00.000Z', count: 3, brand: { id: 'b', name: 'B' }, tags: ['x', null], either: 'e' },
      { name: null, at: null, count: null, brand: null, tags: [], either: 7 },
    ]) {
      expect(JSON.parse(write(value))).toEqual(value);
    }
  });
});
