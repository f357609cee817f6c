// Failure knobs: per venue or for the whole simulator, make contract calls fail the ways a real
// RMS does (5xx, no answer, slow answers, garbage bodies, a forced 402 code), for a number of calls
// or until changed. Venue knobs win over global ones for calls about that venue.

import type { FailuresInput } from './control.schemas.ts';
import type { RmsStore } from './store.ts';
import type { FailureKnobs, Operation } from './types.ts';

export function knobsFromInput(input: FailuresInput): FailureKnobs | null {
  const knobs: FailureKnobs = {
    mode: input.mode ?? 'none',
    status: input.mode === 'status' ? input.status ?? 503 : null,
    slowMs: input.slowMs ?? 0,
    lagMs: input.lagMs ?? 0,
    force402: input.force402 ?? null,
    operations: input.operations ?? null,
    remaining: input.count ?? null,
  };
  const inert = knobs.mode === 'none' && knobs.slowMs === 0 && knobs.lagMs === 0 && knobs.force402 === null;
  return inert ? null : knobs;
}

export function createFailures(store: RmsStore) {
  const applies = (k: FailureKnobs | null | undefined, op: Operation): k is FailureKnobs =>
    !!k && (k.operations === null || k.operations.includes(op)) && (k.force402 === null || k.mode !== 'none' || k.slowMs > 0 || k.lagMs > 0 || isBusiness(op));

  return {
    /** The knobs that apply to this call, counted down (and cleared at zero); null when none. */
    take(op: Operation, venueId: string | null): FailureKnobs | null {
      const { failures } = store;
      const venueKnobs = venueId !== null ? failures.venues[venueId] : undefined;
      const chosen = applies(venueKnobs, op) ? venueKnobs : applies(failures.global, op) ? failures.global : null;
      if (!chosen) return null;
      const copy = { ...chosen };
      if (chosen.remaining !== null) {
        chosen.remaining -= 1;
        if (chosen.remaining <= 0) {
          if (chosen === venueKnobs && venueId !== null) delete failures.venues[venueId];
          else failures.global = null;
        }
      }
      store.save();
      return copy;
    },
    setGlobal(input: FailuresInput): FailureKnobs | null {
      store.failures.global = knobsFromInput(input);
      store.save();
      return store.failures.global;
    },
    setVenue(venueId: string, input: FailuresInput): FailureKnobs | null {
      const knobs = knobsFromInput(input);
      if (knobs) store.failures.venues[venueId] = knobs;
      else delete store.failures.venues[venueId];
      store.save();
      return knobs;
    },
    view(): { global: FailureKnobs | null; venues: Record<string, FailureKnobs> } {
      return store.failures;
    },
  };
}

/** Operations a forced 402 applies to: the ones that make or change a booking. */
export const isBusiness = (op: Operation) => op === 'create' || op === 'update' || op === 'cancel';

export type Failures = ReturnType<typeof createFailures>;
