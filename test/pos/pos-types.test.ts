// POS types are configuration (DESIGN 6.1): the POS_TYPES file is a JSON array of entries, checked
// at start; a malformed file stops the start with an error naming the bad entry and field (DESIGN 9).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, test } from 'vitest';
import { PosTypeRegistry, PosTypesError, loadPosTypes, parsePosType } from '../../src/pos/pos-types.ts';
import { testCertFile, testTls } from '../helpers/http.ts';

const dir = mkdtempSync(join(tmpdir(), 'pos-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(content: string): string {
  const path = join(dir, `pos-types-${++n}.json`);
  writeFileSync(path, content);
  return path;
}
const json = (value: unknown) => file(JSON.stringify(value, null, 2));

const alpha = {
  code: 'alpha', name: 'Alpha POS', baseUrl: 'https://pos.alpha.example/partner/', apiKey: 'alpha-key',
  billRetrieval: true, paymentForwarding: true, paymentConfirmation: 'immediate',
};
const beta = {
  code: 'beta', name: 'Beta POS', baseUrl: 'https://127.0.0.1:9443', apiKey: 'beta-key',
  billRetrieval: false, paymentForwarding: true, paymentConfirmation: 'deferred',
};

function loadError(path: string): PosTypesError {
  try {
    loadPosTypes(path);
  } catch (err) {
    expect(err).toBeInstanceOf(PosTypesError);
    return err as PosTypesError;
  }
  throw new Error('expected loadPosTypes to throw');
}

describe('a valid POS_TYPES file', () => {
  it('[DES-134] loadPosTypes reads every entry with its credentials and capabilities, in file order', () => {
    const registry = loadPosTypes(json([alpha, { ...beta, caFile: testCertFile() }]));
    expect(registry.list().map((t) => t.code)).toEqual(['alpha', 'beta']);
    expect(registry.get('alpha')).toEqual({
      code: 'alpha', name: 'Alpha POS', baseUrl: 'https://pos.alpha.example/partner', apiKey: 'alpha-key',
      billRetrieval: true, paymentForwarding: true, paymentConfirmation: 'immediate',
    });
    expect(registry.get('beta')).toEqual({
      code: 'beta', name: 'Beta POS', baseUrl: 'https://127.0.0.1:9443', apiKey: 'beta-key',
      billRetrieval: false, paymentForwarding: true, paymentConfirmation: 'deferred', ca: testTls().cert,
    });
    expect(registry.get('gamma')).toBeUndefined();
  });

  it('(DESIGN 6.1) no POS_TYPES file means no POS types; an empty array is valid too', () => {
    expect(loadPosTypes(null).list()).toEqual([]);
    expect(loadPosTypes(json([])).list()).toEqual([]);
  });

  it('(DESIGN 6.1) the list grows by configuration alone: a new entry is a new type', () => {
    const registry = loadPosTypes(json([alpha, beta, { ...beta, code: 'gamma-2', name: 'Gamma' }]));
    expect(registry.list().map((t) => [t.code, t.name])).toEqual([['alpha', 'Alpha POS'], ['beta', 'Beta POS'], ['gamma-2', 'Gamma']]);
  });
});

describe('[DES-134] a malformed entry stops the load with an error naming the entry and the field', () => {
  const without = (field: string) => {
    const copy: Record<string, unknown> = { ...beta };
    delete copy[field];
    return copy;
  };

  // Each bad entry sits at index 1, after a good one, so the message must say which entry it is.
  const cases: Array<[string, unknown, RegExp]> = [
    ['missing baseUrl', without('baseUrl'), /baseUrl/],
    ['empty baseUrl', { ...beta, baseUrl: '  ' }, /baseUrl/],
    ['baseUrl that is not a URL', { ...beta, baseUrl: 'pos.example' }, /baseUrl must be a URL/],
    ['[TRN-04] http:// baseUrl', { ...beta, baseUrl: 'http://127.0.0.1:9080' }, /baseUrl must use https/],
    ['missing apiKey', without('apiKey'), /apiKey/],
    ['missing name', without('name'), /name/],
    ['bad paymentConfirmation', { ...beta, paymentConfirmation: 'later' }, /paymentConfirmation/],
    ['missing paymentConfirmation', without('paymentConfirmation'), /paymentConfirmation/],
    ['non-boolean billRetrieval', { ...beta, billRetrieval: 'yes' }, /billRetrieval must be true or false/],
    ['non-boolean paymentForwarding', { ...beta, paymentForwarding: 1 }, /paymentForwarding must be true or false/],
    ['code that is not a slug', { ...beta, code: 'Beta POS' }, /code must be/],
    ['unreadable caFile', { ...beta, caFile: join(dir, 'no-such-ca.pem') }, /caFile .*no-such-ca\.pem cannot be read/],
  ];

  test.each(cases)('%s', (_name, entry, field) => {
    const err = loadError(json([alpha, entry]));
    const code = (entry as { code: string }).code;
    expect(err.message).toMatch(/^Invalid POS_TYPES: /);
    expect(err.message).toContain(`entry 1 ("${code}")`);
    expect(err.message).toMatch(field);
  });

  it('an entry without a code is named by its index, and the field is code', () => {
    const err = loadError(json([alpha, without('code')]));
    expect(err.message).toContain('entry 1');
    expect(err.message).toMatch(/code must be a non-empty string/);
  });

  it('an entry that is not an object is named by its index', () => {
    const err = loadError(json([alpha, 'beta']));
    expect(err.message).toMatch(/entry 1 must be an object/);
  });

  it('a duplicate code names the second entry, its code and the field', () => {
    const err = loadError(json([alpha, beta, { ...beta, name: 'Beta again' }]));
    expect(err.message).toContain('entry 2 ("beta")');
    expect(err.message).toMatch(/code "beta" .*entry 1/);
  });

  it('parsePosType names the entry it is given', () => {
    expect(() => parsePosType({ ...beta, billRetrieval: null }, 7)).toThrow(/entry 7 \("beta"\): billRetrieval must be true or false/);
    expect(() => parsePosType({ ...beta, caFile: '/ca.pem' }, 0, () => { throw new Error('EACCES'); })).toThrow(/entry 0 \("beta"\): caFile \/ca\.pem cannot be read/);
  });

  it('the registry refuses a second type with the same code', () => {
    const registry = new PosTypeRegistry([parsePosType(alpha, 0)]);
    expect(() => registry.add(parsePosType(alpha, 1))).toThrow(PosTypesError);
  });
});

describe('[DES-134] a malformed file stops the load with an error naming the file', () => {
  it('not JSON', () => {
    const path = file('[{"code": "alpha",');
    const err = loadError(path);
    expect(err.message).toContain(path);
    expect(err.message).toMatch(/not valid JSON/);
  });

  it('not an array', () => {
    const path = json({ alpha });
    const err = loadError(path);
    expect(err.message).toContain(path);
    expect(err.message).toMatch(/JSON array/);
  });

  it('a file that cannot be read', () => {
    const missing = join(dir, 'missing.json');
    expect(loadError(missing).message).toMatch(/missing\.json cannot be read/);
    if (process.getuid?.() !== 0) {
      const locked = json([alpha]);
      chmodSync(locked, 0o000);
      expect(loadError(locked).message).toContain(`${locked} cannot be read`);
    }
  });
});
