// Request schemas of the simulator's control API (docs/rms-partner-contract.md, "Control API").
// Each schema is also the TypeScript type the services and the RmsControlClient use.

import Type from 'typebox';
import { BROKEN_MODES } from './broken.ts';
import { ERROR_CODES, OPERATIONS, WEEKDAYS, type FailureKnobs, type Operation, type RmsErrorCode } from './types.ts';
import { LOCAL_DATE } from './contract.schemas.ts';

const Covers = Type.Integer({ minimum: 1, maximum: 1000 });
const Hhmm = Type.String({ pattern: '^(([01]\\d|2[0-3]):[0-5]\\d|24:00)$' });
const NullableString = Type.Union([Type.String({ minLength: 1 }), Type.Null()]);

export const PeriodSchema = Type.Object({ open: Hhmm, close: Hhmm }, { additionalProperties: false });
export const HoursSchema = Type.Object(
  Object.fromEntries(WEEKDAYS.map((d) => [d, Type.Optional(Type.Array(PeriodSchema, { maxItems: 6 }))])) as Record<(typeof WEEKDAYS)[number], Type.TOptional<Type.TArray<typeof PeriodSchema>>>,
  { additionalProperties: false },
);

export const TableSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^/?#]+$' }),
  name: Type.Optional(Type.String()),
  minCovers: Covers,
  maxCovers: Covers,
  areaId: Type.Optional(NullableString),
  posTableId: Type.Optional(NullableString),
}, { additionalProperties: false });

export const CombinationSchema = Type.Object({
  tables: Type.Array(Type.String({ minLength: 1 }), { minItems: 2, maxItems: 12 }),
  minCovers: Covers,
  maxCovers: Covers,
}, { additionalProperties: false });

export const VenueBody = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[^/?#]+$' })),
  name: Type.Optional(Type.String()),
  timezone: Type.Optional(Type.String({ minLength: 1 })),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
  company: Type.Optional(Type.Object({
    minAdvanceBooking: Type.Optional(Type.Integer({ minimum: 0 })),
    minAdvanceBookingCancelling: Type.Optional(Type.Integer({ minimum: 0 })),
  }, { additionalProperties: false })),
  minCovers: Type.Optional(Covers),
  maxCovers: Type.Optional(Covers),
  areas: Type.Optional(Type.Array(Type.Object({ id: Type.String({ minLength: 1 }), name: Type.String() }, { additionalProperties: false }))),
  tables: Type.Optional(Type.Array(TableSchema, { maxItems: 200 })),
  combinations: Type.Optional(Type.Array(CombinationSchema, { maxItems: 200 })),
  hours: Type.Optional(HoursSchema),
  slotIntervalMinutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 240 })),
  turnTimes: Type.Optional(Type.Array(Type.Object({
    maxPartySize: Covers,
    minutes: Type.Integer({ minimum: 5, maximum: 720 }),
  }, { additionalProperties: false }))),
  defaultTurnMinutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 720 })),
  pacing: Type.Optional(Type.Object({
    maxCoversPerSlot: Type.Optional(Type.Union([Covers, Type.Null()])),
    maxBookingsPerSlot: Type.Optional(Type.Union([Covers, Type.Null()])),
  }, { additionalProperties: false })),
  paymentDefinition: Type.Optional(Type.Object({
    requireCreditCard: Type.Optional(Type.Boolean()),
    deposit: Type.Optional(Type.Union([
      Type.Object({ type: Type.Literal('fixed_price'), amount: Type.Number({ minimum: 0 }) }, { additionalProperties: false }),
      Type.Null(),
    ])),
  }, { additionalProperties: false })),
  autoConfirm: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type VenueInput = Type.Static<typeof VenueBody>;

export const FailuresBody = Type.Object({
  mode: Type.Optional(Type.Union([
    Type.Literal('none'), Type.Literal('error5xx'), Type.Literal('hang'), Type.Literal('garbage'), Type.Literal('status'), Type.Literal('act-then-hang'),
  ])),
  /** For mode 'status': the status answered, with an error envelope (408, 429, 401, 403, …). */
  status: Type.Optional(Type.Union([Type.Integer({ minimum: 400, maximum: 599 }), Type.Null()])),
  slowMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
  lagMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
  force402: Type.Optional(Type.Union([...ERROR_CODES.map((c) => Type.Literal(c)), Type.Null()])),
  operations: Type.Optional(Type.Union([Type.Array(Type.Union(OPERATIONS.map((o) => Type.Literal(o))), { minItems: 1 }), Type.Null()])),
  /** How many affected requests before the knobs clear themselves; null or absent: until changed. */
  count: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
}, { additionalProperties: false });
/** Written out: Static<> of unions built with .map() loses the literal types. */
export interface FailuresInput {
  mode?: FailureKnobs['mode'];
  status?: number | null;
  slowMs?: number;
  lagMs?: number;
  force402?: RmsErrorCode | null;
  operations?: Operation[] | null;
  count?: number | null;
}

export const SeatBody = Type.Object({
  /** POS table ids for the seated event; default: the posTableId of the booking's tables. */
  posTableIds: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
  items: Type.Optional(Type.Array(Type.Object({
    sku: Type.String({ minLength: 1 }),
    quantity: Type.Integer({ minimum: 1 }),
    notes: Type.Optional(Type.String()),
  }, { additionalProperties: false }), { minItems: 1 })),
}, { additionalProperties: false });
export type SeatInput = Type.Static<typeof SeatBody>;

export const TargetBody = Type.Object({
  tablesideUrl: Type.String({ pattern: '^https://' }),
  apiKey: Type.String({ minLength: 1 }),
  /** PEM to trust for Tableside's certificate (besides Node's CAs). */
  ca: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
}, { additionalProperties: false });
export type TargetInput = Type.Static<typeof TargetBody>;

export const FeedPushBody = Type.Object({
  /** First venue-local date; default: today in each venue's zone. */
  startDate: Type.Optional(Type.String({ pattern: LOCAL_DATE })),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90 })),
  /** Default: each venue's minCovers .. min(maxCovers, 10). */
  partySizes: Type.Optional(Type.Array(Covers, { minItems: 1, maxItems: 50 })),
  venueIds: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
  /** Records per shard (default 500). */
  shardSize: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Send order of the shards (default asc); Tableside must accept any order. */
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  /** Send only these shard numbers (the metadata still says the full total): an incomplete nonce. */
  onlyShards: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1 })),
}, { additionalProperties: false });
export type FeedPushInput = Type.Static<typeof FeedPushBody>;

export const NotifyBody = Type.Object({
  bookingId: Type.String({ minLength: 1 }),
  action: Type.Optional(Type.Union([Type.Literal('update'), Type.Literal('cancel')])),
}, { additionalProperties: false });
export type NotifyInput = Type.Static<typeof NotifyBody>;

// The clock body and its route are the POS simulator's: both simulators move time the same way.
export type { ClockInput } from '../../pos-simulator/src/control.schemas.ts';

export const BrokenBody = Type.Object({
  mode: Type.Union([...Object.keys(BROKEN_MODES).map((m) => Type.Literal(m)), Type.Null()]),
});
