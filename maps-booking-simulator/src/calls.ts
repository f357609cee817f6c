// The log of what the simulator received: every call of the two methods (with the service account
// its token stood for and the answer given) and every token request (with the JWT's claims, never
// the signed assertion or the access token itself, so the read-only view the sandbox offers shows
// nothing that grants access). Bounded per kind by the POS simulator's RequestLog.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { LoggedRequest } from '../../pos-simulator/src/request-log.ts';

export const CALLS = 'calls';
export const TOKENS = 'tokens';

export interface Answer {
  status: number;
  /** The JSON answered (a token's access_token shortened); absent for a streamed oversized body. */
  body?: unknown;
  retryAfter?: string;
  /**
   * For a scripted oversized answer (pos-simulator/src/oversized.ts): its size, what was streamed
   * before the connection ended, whether it all was, and whether the connection has ended.
   */
  oversizedBytes?: number;
  bytesStreamed?: number;
  completed?: boolean;
  ended?: boolean;
}

interface Logged extends LoggedRequest {
  /** The answer given; null while unanswered (a hang, a slow answer in progress). */
  answer: Answer | null;
}

export interface ApiCall extends Logged {
  operation: 'notifyBooking' | 'replaceAvailability';
  partnerId: string;
  bookingId: string | null;
  /** The service account the Bearer token was issued to; null when no token the simulator issued was sent. */
  serviceAccount: string | null;
}

export interface TokenRequest extends Logged {
  operation: 'token';
  grantType: string | null;
  /** The JWT's claims as sent (unverified: a refused assertion shows what it claimed). */
  claims: Record<string, unknown> | null;
}

const tracked = new WeakMap<FastifyRequest, Logged>();

export function track(request: FastifyRequest, entry: Logged): void {
  tracked.set(request, entry);
}

export const entryOf = (request: FastifyRequest): Logged | undefined => tracked.get(request);

/** Request headers as logged: the Bearer token is not kept. */
export function loggedHeaders(request: FastifyRequest): Record<string, string | string[] | undefined> {
  const { authorization, ...rest } = request.headers;
  return authorization === undefined ? rest : { ...rest, authorization: authorization.replace(/^(Bearer\s+).+$/i, '$1…') };
}

function shortenToken(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || typeof (body as { access_token?: unknown }).access_token !== 'string') return body;
  const token = (body as { access_token: string }).access_token;
  return { ...body, access_token: `${token.slice(0, 12)}…` };
}

/** Records each JSON answer of the scope on its log entry as it is sent. */
export function recordAnswers(scope: FastifyInstance): void {
  scope.addHook('onSend', async (request, reply, payload) => {
    const entry = tracked.get(request);
    if (!entry || typeof payload !== 'string') return payload;
    let body: unknown;
    try {
      body = payload === '' ? undefined : JSON.parse(payload);
    } catch {
      body = payload;
    }
    const retryAfter = reply.getHeader('retry-after');
    entry.status = reply.statusCode;
    entry.answer = { status: reply.statusCode, body: shortenToken(body), ...(retryAfter !== undefined ? { retryAfter: String(retryAfter) } : {}) };
    return payload;
  });
}
