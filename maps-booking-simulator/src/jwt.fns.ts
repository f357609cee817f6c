// The checks Google's token endpoint makes of a jwt-bearer assertion (RFC 7523 3): an RS256
// signature by a known service account, `iss` that account, `aud` the token endpoint, a lifetime of
// at most an hour that covers now, and the scope asked for. Verified with node:crypto directly, not
// with the library the service signs with, so a test proves the wire format rather than one library
// agreeing with itself.

import { verify, type KeyObject } from 'node:crypto';
import { OAuthError } from './errors.ts';

export const MAPS_BOOKING_SCOPE = 'https://www.googleapis.com/auth/mapsbooking';
/** Google's limit on exp - iat. */
export const MAX_ASSERTION_LIFETIME_S = 3600;

export interface AssertionKey { publicKey: KeyObject; privateKeyId: string | null }

export interface AssertionContext {
  /** The key of the account named by `iss`, or undefined when there is none. */
  keyOf(clientEmail: string): AssertionKey | undefined;
  /** The token endpoint's own URL: the only audience accepted. */
  audience: string;
  nowSec: number;
  /** Tolerated clock difference between the signer and the simulator. */
  skewSec: number;
}

export interface AssertionClaims {
  iss: string;
  aud: string;
  scope: string;
  iat: number;
  exp: number;
  sub?: string;
}

const TIMEFRAME = 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.';

function decodeJson(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The claims of an assertion, unverified (for the token-request log); null when it is not a JWT. */
export function peekClaims(assertion: string): Record<string, unknown> | null {
  const parts = assertion.split('.');
  return parts.length === 3 ? decodeJson(parts[1]) : null;
}

/** The verified claims, or an OAuthError with Google's wording. */
export function checkAssertion(assertion: string, ctx: AssertionContext): AssertionClaims {
  const parts = assertion.split('.');
  const header = parts.length === 3 ? decodeJson(parts[0]) : null;
  const claims = parts.length === 3 ? decodeJson(parts[1]) : null;
  if (!header || !claims) throw new OAuthError('invalid_grant', 'Invalid JWT: the assertion is not a signed JWT (header.payload.signature)');
  if (header.alg !== 'RS256') throw new OAuthError('invalid_grant', `Invalid JWT: alg must be RS256, got ${JSON.stringify(header.alg)}`);

  const key = typeof claims.iss === 'string' ? ctx.keyOf(claims.iss) : undefined;
  if (!key) throw new OAuthError('invalid_grant', 'Invalid grant: account not found');
  const kidMismatch = header.kid !== undefined && key.privateKeyId !== null && header.kid !== key.privateKeyId;
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
  if (kidMismatch || !verify('RSA-SHA256', signed, key.publicKey, Buffer.from(parts[2], 'base64url'))) {
    throw new OAuthError('invalid_grant', 'Invalid JWT Signature.');
  }

  if (claims.aud !== ctx.audience) {
    throw new OAuthError('invalid_grant', `Invalid JWT: Failed audience check. The right audience is ${ctx.audience}`);
  }
  const { iat, exp } = claims;
  if (typeof iat !== 'number' || typeof exp !== 'number' || !Number.isInteger(iat) || !Number.isInteger(exp)) throw new OAuthError('invalid_grant', TIMEFRAME);
  const lifetime = exp - iat;
  if (lifetime <= 0 || lifetime > MAX_ASSERTION_LIFETIME_S || iat > ctx.nowSec + ctx.skewSec || exp < ctx.nowSec - ctx.skewSec) {
    throw new OAuthError('invalid_grant', TIMEFRAME);
  }
  const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
  if (!scopes.includes(MAPS_BOOKING_SCOPE)) throw new OAuthError('invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
  return { iss: claims.iss as string, aud: ctx.audience, scope: claims.scope as string, iat, exp, ...(typeof claims.sub === 'string' ? { sub: claims.sub } : {}) };
}
