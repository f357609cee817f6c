// What a real POS may do to a seated reservation's create (DESIGN 8.8a), scripted per venue for the
// service's tests and the seating drill: answer a 2xx whose body is not the contract's (empty, not
// JSON, `{"id"}` without checkNumber), create the order and never answer (the client times out),
// answer 503 or 429, use the `id` Tableside sent as its own order id (a POS that "echoes" it), answer
// every contract call slowly, or hold every contract call until the test lets it go. In memory only:
// `/_control/reset` forgets them.

import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { HeldRequests } from './held.ts';

export const CREATE_ANSWERS = [
  'normal', 'empty', 'not-json', 'id-only', 'timeout-after-create', 'error503', 'error503-after-create', 'error429',
] as const;
/** One create's answer: `normal` is the contract's 201 `{id, checkNumber}`; the `-after-create` ones make the order first. */
export type CreateAnswer = (typeof CREATE_ANSWERS)[number];

export const SeatingFaultsBody = Type.Object({
  /** The POS uses the `id` Tableside sent as its own order id (when that id is free). */
  echoId: Type.Optional(Type.Boolean()),
  /** Every contract call of the venue answers this much later (real time). */
  slowMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 120_000 })),
  /** Every contract call of the venue waits until `POST /_control/venues/{venueId}/release`. */
  hold: Type.Optional(Type.Boolean()),
  /** The answers of the next creates, one each, in order; then `normal`. */
  createAnswers: Type.Optional(Type.Array(Type.Enum([...CREATE_ANSWERS]), { maxItems: 1000 })),
}, { additionalProperties: false });
export type SeatingFaults = Type.Static<typeof SeatingFaultsBody>;

/** `newest`: only the call held last goes on (a test lets a second caller through while the first waits). */
const ReleaseBody = Type.Union([Type.Object({ newest: Type.Optional(Type.Boolean()) }, { additionalProperties: false }), Type.Null()]);

export class SeatingFaultKnobs {
  private readonly byVenue = new Map<string, SeatingFaults>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly held: HeldRequests) {}

  set(venueId: string, faults: SeatingFaults): SeatingFaults {
    this.byVenue.set(venueId, { ...faults, createAnswers: [...(faults.createAnswers ?? [])] });
    if (!faults.hold) this.release(venueId);
    return this.view(venueId);
  }

  view(venueId: string): SeatingFaults {
    const f = this.byVenue.get(venueId) ?? {};
    return { echoId: f.echoId ?? false, slowMs: f.slowMs ?? 0, hold: f.hold ?? false, createAnswers: [...(f.createAnswers ?? [])] };
  }

  echoes(venueId: string): boolean {
    return this.byVenue.get(venueId)?.echoId ?? false;
  }

  /** The scripted answer of this create (consumed), `normal` when none is left. */
  nextCreateAnswer(venueId: string): CreateAnswer {
    return this.byVenue.get(venueId)?.createAnswers?.shift() ?? 'normal';
  }

  /** Before any contract call of the venue is handled: held until released, then slowed. */
  async before(venueId: string): Promise<void> {
    const f = this.byVenue.get(venueId);
    if (!f) return;
    if (f.hold) {
      await new Promise<void>((resolve) => {
        const list = this.waiting.get(venueId) ?? [];
        list.push(resolve);
        this.waiting.set(venueId, list);
      });
    }
    if (f.slowMs) await this.held.sleep(f.slowMs);
  }

  /** Lets the venue's held calls go on (only the last one held, with `newest`); how many went on. */
  release(venueId: string, newest = false): number {
    const list = this.waiting.get(venueId) ?? [];
    const going = newest ? list.splice(-1, 1) : list.splice(0);
    if (list.length === 0) this.waiting.delete(venueId);
    for (const go of going) go();
    return going.length;
  }

  /** How many calls of the venue are held now. */
  holding(venueId: string): number {
    return this.waiting.get(venueId)?.length ?? 0;
  }

  clear(): void {
    for (const venueId of [...this.waiting.keys()]) this.release(venueId);
    this.byVenue.clear();
  }
}

/** The control routes of the knobs (documented in docs/pos-partner-contract.md, "Control API"). */
export function seatingFaultRoutes(app: FastifyInstance, knobs: SeatingFaultKnobs): void {
  type V = { venueId: string };
  app.put<{ Params: V; Body: SeatingFaults }>('/_control/venues/:venueId/seating-faults', { schema: { body: SeatingFaultsBody } }, async (request) =>
    knobs.set(request.params.venueId, request.body));
  app.get<{ Params: V }>('/_control/venues/:venueId/seating-faults', async (request) =>
    ({ ...knobs.view(request.params.venueId), holding: knobs.holding(request.params.venueId) }));
  app.post<{ Params: V; Body: { newest?: boolean } | undefined }>('/_control/venues/:venueId/release', { schema: { body: ReleaseBody } }, async (request) =>
    ({ released: knobs.release(request.params.venueId, request.body?.newest ?? false) }));
}
