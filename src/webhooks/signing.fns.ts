import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

// Standard Webhooks signatures (DESIGN 3 names `standardwebhooks` 1.x for signing): `v1,<base64 of
// HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`, the key being the secret's base64 after `whsec_`.
// The library computes the HMAC in pure JavaScript (fast-sha256) and decodes the key at every
// `new Webhook`; node:crypto's HMAC over a key decoded once gives the same bytes for a fraction of
// the CPU (issue 28: about 15 µs of a delivery's ~0.5 ms in the bench's profile). The library stays
// the reference: a secret whose base64 Node would read differently from the library's strict
// decoder (not canonical) is signed by the library itself, and test/webhooks/signing.test.ts
// compares the two on random and awkward inputs.

const PREFIX = 'whsec_';
const keys = new Map<string, KeyObject | null>();

/** The HMAC key of a secret, null when only the library may decode it. Bounded: emptied when full. */
function keyOf(secret: string): KeyObject | null {
  let key = keys.get(secret);
  if (key === undefined) {
    const b64 = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
    const bytes = Buffer.from(b64, 'base64');
    // Node's decoder skips what is not base64 and accepts the URL-safe alphabet; the library's does
    // not. Only a secret that re-encodes to itself is certain to decode to the library's key.
    key = bytes.length > 0 && bytes.toString('base64') === b64 ? createSecretKey(bytes) : null;
    if (keys.size >= 1000) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** One secret's `v1,<sig>`, byte for byte what `new Webhook(secret).sign(webhookId, at, body)` returns. */
export function sign(secret: string, webhookId: string, at: Date, body: string): string {
  const key = keyOf(secret);
  if (!key) return new Webhook(secret).sign(webhookId, at, body);
  // The library encodes the message as UTF-8 (TextEncoder), as update() does with a string.
  return `v1,${createHmac('sha256', key).update(`${webhookId}.${Math.floor(at.getTime() / 1000)}.`).update(body).digest('base64')}`;
}

/** `webhook-signature`: one `v1,<sig>` per secret that signs (two for 24 h after a rotation), space-separated. */
export function signatureHeader(secrets: string[], webhookId: string, at: Date, body: string): string {
  return secrets.map((s) => sign(s, webhookId, at, body)).join(' ');
}
