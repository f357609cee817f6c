import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { sign, signatureHeader } from '../../src/webhooks/signing.fns.ts';
import { webhookIdOf } from '../../src/webhooks/webhooks.fns.ts';

// The service signs with node:crypto (issue 28); the `standardwebhooks` library stays the reference
// for every byte of the signature.

const library = (secret: string, id: string, at: Date, body: string) => new Webhook(secret).sign(id, at, body);

describe('webhook signatures', () => {
  it('[WHK-02] [DES-113] are byte for byte the standardwebhooks library\'s, for random secrets, ids, times and bodies', () => {
    const bodies = ['', '{}', JSON.stringify({ type: 'order.closed', data: { name: 'Café 😀 – 漢字', note: 'a\\"b\nc' } }), '\ud800 lone surrogate \udfff', 'x'.repeat(70_000)];
    for (let i = 0; i < 200; i++) {
      const secret = `whsec_${randomBytes(1 + (i % 64)).toString('base64')}`;
      const id = webhookIdOf(randomUUID());
      const at = new Date(Date.now() + i * 999_937 - 1e11);
      const body = bodies[i % bodies.length]! + randomBytes(i % 7).toString('hex');
      expect(sign(secret, id, at, body)).toBe(library(secret, id, at, body));
    }
  });

  it('[WHK-02] a secret the library decodes otherwise than Node would (no prefix, unpadded, not canonical) is signed as the library signs it', () => {
    const at = new Date('2030-05-01T10:00:00.999Z');
    const padded = randomBytes(32).toString('base64');
    const urlSafe = Buffer.from([0xfb, 0xff, 0xbf, ...randomBytes(29)]).toString('base64url');
    for (const secret of [padded, `whsec_${padded.replace(/=+$/, '')}`, `whsec_${urlSafe}`, `whsec_ ${padded}`, `whsec_${padded}!`]) {
      let expected: string | Error;
      try {
        expected = library(secret, 'msg_1', at, '{"a":1}');
      } catch (err) {
        expected = err as Error;
      }
      if (expected instanceof Error) expect(() => sign(secret, 'msg_1', at, '{"a":1}')).toThrow(expected.message);
      else expect(sign(secret, 'msg_1', at, '{"a":1}')).toBe(expected);
    }
  });

  it('[WHK-02] the header carries one signature per secret, each verifying with its own secret', () => {
    const secrets = [`whsec_${randomBytes(32).toString('base64')}`, `whsec_${randomBytes(32).toString('base64')}`];
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const id = webhookIdOf(randomUUID());
    const header = signatureHeader(secrets, id, at, '{"x":1}');
    expect(header.split(' ')).toHaveLength(2);
    for (const secret of secrets) {
      const headers = { 'webhook-id': id, 'webhook-timestamp': String(at.getTime() / 1000), 'webhook-signature': header };
      expect(new Webhook(secret).verify('{"x":1}', headers)).toEqual({ x: 1 });
    }
  });
});
