// Answering a call the way its scripted answer says: a status (with Google's error JSON unless a
// body was scripted), no answer at all, a late answer, or a body too large for any sane client.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HeldRequests } from '../../pos-simulator/src/held.ts';
import { sendOversized } from '../../pos-simulator/src/oversized.ts';
import { entryOf } from './calls.ts';
import { googleErrorBody } from './errors.ts';
import type { ScriptedAnswer } from './script.ts';

export interface RespondDeps {
  /** Hangs and slow answers, let go when the simulator closes. */
  held: HeldRequests;
}

/**
 * Applies the scripted answer; true when it answered the call (or never will), false when the call
 * goes on to its real answer (nothing scripted, or a slow answer whose delay has passed).
 */
export async function answerScripted(scripted: ScriptedAnswer | null, request: FastifyRequest, reply: FastifyReply, deps: RespondDeps): Promise<boolean> {
  if (scripted === null) return false;
  switch (scripted.kind) {
    case 'slow':
      await deps.held.sleep(scripted.delayMs);
      return false;
    case 'status':
      if (scripted.retryAfter !== undefined) reply.header('retry-after', scripted.retryAfter);
      if (scripted.status === 401) reply.header('www-authenticate', 'Bearer realm="https://accounts.google.com/"');
      await reply.code(scripted.status).send(scripted.body ?? googleErrorBody(scripted.status));
      return true;
    case 'hang':
      return deps.held.park(request);
    case 'oversized':
      answerOversized(scripted.bytes, request, reply);
      return true;
  }
}

function answerOversized(bytes: number, request: FastifyRequest, reply: FastifyReply): void {
  // No Content-Length: the client must notice the size while reading, not from a header.
  const answer = sendOversized(reply, bytes, false);
  const entry = entryOf(request);
  if (entry) {
    entry.status = 200;
    entry.answer = answer;
  }
}
