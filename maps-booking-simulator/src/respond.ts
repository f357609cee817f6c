// Answering a call the way its scripted answer says: a status (with Google's error JSON unless a
// body was scripted), no answer at all, a late answer, or a body too large for any sane client.

import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HeldRequests } from '../../pos-simulator/src/held.ts';
import { entryOf } from './calls.ts';
import { googleErrorBody } from './errors.ts';
import type { ScriptedAnswer } from './script.ts';

export interface RespondDeps {
  /** Hangs and slow answers, let go when the simulator closes. */
  held: HeldRequests;
}

const CHUNK = 64 * 1024;

/** `{"padding":"xxx…"}` of exactly `bytes` bytes, produced chunk by chunk as the socket drains. */
function oversizedBody(bytes: number, progress: (sent: number, done: boolean) => void): Readable {
  const head = '{"padding":"';
  const tail = '"}';
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes) return;
      const start = sent === 0 ? head : '';
      const room = Math.min(CHUNK, bytes - sent);
      const last = sent + room >= bytes;
      const fill = Math.max(0, room - start.length - (last ? tail.length : 0));
      const chunk = Buffer.from(start + 'x'.repeat(fill) + (last ? tail : ''));
      sent += chunk.length;
      progress(sent, false);
      this.push(chunk);
      if (last) this.push(null);
    },
  });
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
      await sendOversized(scripted.bytes, request, reply);
      return true;
  }
}

async function sendOversized(bytes: number, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const entry = entryOf(request);
  const answer = { status: 200, oversizedBytes: bytes, bytesStreamed: 0, completed: false };
  if (entry) {
    entry.status = 200;
    entry.answer = answer;
  }
  const body = oversizedBody(bytes, (sent) => { answer.bytesStreamed = sent; });
  body.on('end', () => { answer.completed = true; });
  // No Content-Length: the client must notice the size while reading, not from a header.
  await reply.code(200).header('content-type', 'application/json; charset=UTF-8').send(body);
}
