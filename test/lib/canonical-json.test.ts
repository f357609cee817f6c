import { describe, expect, test } from 'vitest';
import { canonicalJson } from '../../src/lib/canonical-json.ts';

// Fingerprints of request bodies are stored (channel bookings' request_hash, notices' body_hash) and
// compared with those of later requests: the text must not change for a value that can arrive.

describe('canonicalJson', () => {
  test('two values that differ only in key order give the same text, at every level', () => {
    const a = { b: 1, a: { d: [{ y: 2, x: 1 }], c: 'é' } };
    const b = { a: { c: 'é', d: [{ x: 1, y: 2 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"c":"é","d":[{"x":1,"y":2}]},"b":1}');
  });

  test('keys are sorted by code unit, integer-like keys too (unlike JSON.stringify)', () => {
    expect(canonicalJson({ b: 0, 10: 0, 2: 0, A: 0, '1': 0 })).toBe('{"1":0,"10":0,"2":0,"A":0,"b":0}');
  });

  test('a key whose value is undefined is left out; an undefined array element is null (as JSON.stringify)', () => {
    expect(canonicalJson({ a: 1, b: undefined, c: { d: undefined } })).toBe('{"a":1,"c":{}}');
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson([1, undefined, 2])).toBe('[1,null,2]');
  });

  test.each([
    ['a string with quotes and a newline', 'a "b"\n', '"a \\"b\\"\\n"'],
    ['a number', 1.5, '1.5'],
    ['null', null, 'null'],
    ['a boolean', false, 'false'],
    ['an empty object', {}, '{}'],
    ['an empty array', [], '[]'],
    ['an escaped key', { 'k"': 1 }, '{"k\\"":1}'],
  ])('%s is written as JSON.stringify writes it', (_what, value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });
});
