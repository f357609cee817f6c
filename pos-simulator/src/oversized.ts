// Answers too large for any sane client (DESIGN 8.8e): a JSON body of a scripted size, produced
// chunk by chunk as the socket drains, so the simulator never holds it; what was streamed before
// the client hung up is recorded. Shared with the RMS and Maps Booking API simulators.

import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import Type from 'typebox';

const CHUNK = 64 * 1024;

/** `{"padding":"xxx…"}` of exactly `bytes` bytes, produced chunk by chunk as the socket drains. */
export function oversizedBody(bytes: number, progress: (sent: number) => void): Readable {
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
      progress(sent);
      this.push(chunk);
      if (last) this.push(null);
    },
  });
}

/** One oversized answer: its size, what was streamed before the connection ended, and whether it all was. */
export interface OversizedAnswer {
  status: number;
  oversizedBytes: number;
  bytesStreamed: number;
  completed: boolean;
  /** The response finished or its connection closed: `bytesStreamed` is final. */
  ended: boolean;
}

/**
 * Streams an oversized 200 answer on `reply`. `declareLength`: with a Content-Length header (a
 * client may refuse it before reading); otherwise chunked, so the client must count while reading.
 */
export function sendOversized(reply: FastifyReply, bytes: number, declareLength: boolean): OversizedAnswer {
  const answer: OversizedAnswer = { status: 200, oversizedBytes: bytes, bytesStreamed: 0, completed: false, ended: false };
  const body = oversizedBody(bytes, (sent) => { answer.bytesStreamed = sent; });
  body.on('end', () => { answer.completed = true; });
  reply.raw.on('close', () => { answer.ended = true; });
  if (declareLength) reply.header('content-length', String(bytes));
  void reply.code(200).header('content-type', 'application/json; charset=utf-8').send(body);
  return answer;
}

export const OversizedBody = Type.Object({
  /** Size of each answer in bytes (up to 1 GiB). */
  bytes: Type.Integer({ minimum: 1, maximum: 1024 ** 3 }),
  /** true: no Content-Length (chunked), so only counting while reading notices the size. Default false. */
  chunked: Type.Optional(Type.Boolean()),
  /** Answer this many contract calls so, then clear; null or absent: until cleared. */
  count: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
}, { additionalProperties: false });
export type OversizedInput = Type.Static<typeof OversizedBody>;

export interface OversizedView {
  knob: { bytes: number; chunked: boolean; remaining: number | null } | null;
  /** The latest oversized answers, newest last (at most 20). */
  answers: OversizedAnswer[];
}

/** The oversized-answer knob of a simulator: every contract call answers an oversized 200 while it is set. */
export class OversizedAnswers {
  private knob: OversizedView['knob'] = null;
  private readonly answers: OversizedAnswer[] = [];

  set(input: OversizedInput | null): OversizedView {
    this.knob = input && { bytes: input.bytes, chunked: input.chunked ?? false, remaining: input.count ?? null };
    return this.view();
  }

  view(): OversizedView {
    return { knob: this.knob && { ...this.knob }, answers: this.answers.map((a) => ({ ...a })) };
  }

  /** Answers the call with an oversized body when the knob is set (counting it down); true when it did. */
  answer(reply: FastifyReply): boolean {
    const knob = this.knob;
    if (!knob) return false;
    if (knob.remaining !== null && --knob.remaining <= 0) this.knob = null;
    this.answers.push(sendOversized(reply, knob.bytes, !knob.chunked));
    if (this.answers.length > 20) this.answers.shift();
    return true;
  }
}

/** GET/PUT/DELETE /_control/oversized, inside a simulator's authenticated control scope. */
export function oversizedRoutes(app: FastifyInstance, oversized: OversizedAnswers): void {
  app.get('/_control/oversized', async () => oversized.view());
  app.put<{ Body: OversizedInput }>('/_control/oversized', { schema: { body: OversizedBody } }, async (request) => oversized.set(request.body));
  app.delete('/_control/oversized', async () => oversized.set(null));
}
