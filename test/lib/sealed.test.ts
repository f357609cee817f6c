import { describe, expect, it } from 'vitest';
import { newSealingKey, parseSealingKey, seal, unseal } from '../../src/lib/sealed.ts';

describe('sealed secrets (AES-256-GCM)', () => {
  it('a sealed value opens with its key only, hides the plaintext, and fails when altered', () => {
    const key = newSealingKey();
    const sealed = seal(key, 'rms_secret-key-123');
    expect(sealed).not.toContain('rms_secret');
    expect(seal(key, 'rms_secret-key-123')).not.toBe(sealed); // a fresh IV every time
    expect(unseal(key, sealed)).toBe('rms_secret-key-123');
    expect(() => unseal(newSealingKey(), sealed)).toThrow();
    const [v, iv, tag, body] = sealed.split('.');
    const flipped = body!.slice(0, -2) + (body!.endsWith('AA') ? 'AB' : 'AA');
    expect(() => unseal(key, [v, iv, tag, flipped].join('.'))).toThrow();
    expect(() => unseal(key, 'plain text')).toThrow(/format/);
  });

  it('SECRETS_KEY must be 32 bytes of base64', () => {
    expect(parseSealingKey(newSealingKey().toString('base64'))).toHaveLength(32);
    expect(parseSealingKey('c2hvcnQ=')).toBeNull();
  });
});
