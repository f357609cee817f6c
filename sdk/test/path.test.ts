import { defaultPathSerializer } from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import { templatePathSerializer } from '../src/path.ts';

// The client's path serializer splits each template once; what it answers must be what
// openapi-fetch's default answers, for every template and value.

describe('templatePathSerializer', () => {
  const serialize = templatePathSerializer();
  it.each([
    ['https://h/v1/pat/venue/{venueId}/table/{tableId}/bill', { venueId: 'ven_1', tableId: 'tab_2' }],
    ['https://h/v1/pat/venue/{venueId}/table/{tableId}/bill', { venueId: 'a b/c?d#e%f$1&$$', tableId: 'é€😀' }],
    ['https://h/v1/x/{id}', { id: 42 }],
    ['https://h/v1/x/{id}', { id: 0 }],
    ['https://h/v1/x/{id}', {}],
    ['https://h/v1/x/{id}', { id: null }],
    ['https://h/v1/x/{id}/{other}', { id: 'a' }],
    ['https://h/v1/x/{id}', { id: true }],
    ['https://h/v1/x/{id}', { id: ['a', 'b'] }],
    ['https://h/v1/x/{id}', { id: { a: '1', b: '2' } }],
    ['https://h/v1/x/{id*}', { id: ['a', 'b'] }],
    ['https://h/v1/x/{.id}', { id: 'a' }],
    ['https://h/v1/x/{;id}', { id: 'a' }],
    ['https://h/v1/x/{id}/y/{id}', { id: 'a' }],
    ['https://h/v1/x', {}],
    ['https://h/v1/x', { id: 'unused' }],
  ])('%s %j', (pathname, params) => {
    // Twice: the first call splits the template, the second uses the split.
    expect(serialize(pathname, params)).toBe(defaultPathSerializer(pathname, params));
    expect(serialize(pathname, params)).toBe(defaultPathSerializer(pathname, params));
  });
});
