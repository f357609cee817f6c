// Access tokens the token endpoint issued, by value: which service account and partner each
// stands for and until when (on the simulator's clock). Opaque strings, like Google's `ya29.…`.

import { randomBytes } from 'node:crypto';

export interface IssuedToken { clientEmail: string; partnerId: string; expiresAtMs: number; revoked: boolean }

export type TokenCheck =
  | { ok: true; token: IssuedToken }
  | { ok: false; reason: 'missing' | 'unknown' | 'expired' | 'revoked'; token?: IssuedToken };

export class AccessTokens {
  private readonly byValue = new Map<string, IssuedToken>();

  issue(clientEmail: string, partnerId: string, nowMs: number, lifetimeS: number): string {
    this.forgetExpired(nowMs);
    const value = `ya29.sim-${randomBytes(24).toString('base64url')}`;
    this.byValue.set(value, { clientEmail, partnerId, expiresAtMs: nowMs + lifetimeS * 1000, revoked: false });
    return value;
  }

  /** What the `Authorization` header's Bearer token stands for at `nowMs`. */
  check(authorization: string | undefined, nowMs: number): TokenCheck {
    const m = /^Bearer (\S+)$/i.exec(authorization ?? '');
    if (!m) return { ok: false, reason: 'missing' };
    const token = this.byValue.get(m[1]);
    if (!token) return { ok: false, reason: 'unknown' };
    if (token.revoked) return { ok: false, reason: 'revoked', token };
    if (nowMs >= token.expiresAtMs) return { ok: false, reason: 'expired', token };
    return { ok: true, token };
  }

  /** Every token issued so far stops working (as when a key is disabled). */
  revokeAll(clientEmail?: string): number {
    let n = 0;
    for (const token of this.byValue.values()) {
      if (clientEmail !== undefined && token.clientEmail !== clientEmail) continue;
      if (!token.revoked) n += 1;
      token.revoked = true;
    }
    return n;
  }

  clear(): void {
    this.byValue.clear();
  }

  /** Tokens long expired are dropped, so a long sandbox run stays bounded. */
  private forgetExpired(nowMs: number): void {
    for (const [value, token] of this.byValue) if (token.expiresAtMs < nowMs - 24 * 3600 * 1000) this.byValue.delete(value);
  }
}
