// Request schemas of the simulator's control API (docs/pos-partner-contract.md, "Control API").
// Each schema is also the TypeScript type the services and the ControlClient use.

import Type from 'typebox';
import { BROKEN_MODES } from './broken.ts';
import { FAILURE_CODES } from './types.ts';

const Money = Type.Number({ minimum: 0 });
const FailureCode = Type.Union(FAILURE_CODES.map((c) => Type.Literal(c)));
const FailNext = Type.Optional(Type.Integer({ minimum: 0 }));

export const Behaviour = Type.Union([
  Type.Object({ payment: Type.Literal('immediate'), failNext: FailNext }, { additionalProperties: false }),
  Type.Object({
    payment: Type.Literal('deferred'),
    delayMs: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    outcome: Type.Union([Type.Literal('confirmed'), FailureCode]),
    failNext: FailNext,
  }, { additionalProperties: false }),
  Type.Object({ payment: Type.Literal('reject'), failureCode: FailureCode, failNext: FailNext }, { additionalProperties: false }),
  Type.Object({ payment: Type.Literal('error5xx'), failNext: FailNext }, { additionalProperties: false }),
  Type.Object({ payment: Type.Literal('hang'), failNext: FailNext }, { additionalProperties: false }),
]);

export const Table = Type.Object({ id: Type.String({ minLength: 1 }), name: Type.String() });
export const Tables = Type.Array(Table);
export const MenuEntry = Type.Object({ sku: Type.String({ minLength: 1 }), name: Type.String(), price: Money });
export const Menu = Type.Array(MenuEntry);

export const VenueBody = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, pattern: '^[^/?#]+$' })),
  name: Type.Optional(Type.String()),
  timezone: Type.Optional(Type.String()),
  currency: Type.Optional(Type.String()),
  itemsSupported: Type.Optional(Type.Boolean()),
  behaviour: Type.Optional(Behaviour),
  /** true: the venue's back office withdrew our access; its contract calls answer 403. */
  accessRevoked: Type.Optional(Type.Boolean()),
  tables: Type.Optional(Tables),
  menu: Type.Optional(Menu),
});
export type VenueInput = Type.Static<typeof VenueBody>;

export const StaffItem = Type.Object({
  sku: Type.Optional(Type.String({ minLength: 1 })),
  name: Type.Optional(Type.String()),
  price: Type.Optional(Money),
  quantity: Type.Integer({ minimum: 1 }),
  notes: Type.Optional(Type.String()),
  discount: Type.Optional(Money),
});
export type StaffItemInput = Type.Static<typeof StaffItem>;

export const StaffCheck = Type.Object({
  checkNumber: Type.Optional(Type.String({ minLength: 1 })),
  items: Type.Optional(Type.Array(StaffItem)),
  tax: Type.Optional(Money),
  tip: Type.Optional(Money),
  discount: Type.Optional(Money),
});
export type StaffCheckInput = Type.Static<typeof StaffCheck>;

export const WalkInBody = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1 })),
  tables: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  partySize: Type.Optional(Type.Integer({ minimum: 0 })),
  guestName: Type.Optional(Type.String()),
  prepayment: Type.Optional(Money),
  checks: Type.Optional(Type.Array(StaffCheck, { minItems: 1 })),
});
export type WalkInInput = Type.Static<typeof WalkInBody>;

export const AddItemsBody = Type.Object({
  checkNumber: Type.Optional(Type.String()),
  items: Type.Array(StaffItem, { minItems: 1 }),
});
export type AddItemsInput = Type.Static<typeof AddItemsBody>;

export const CloseBody = Type.Object({ paymentMethod: Type.Optional(Type.String()) });
export const VoidBody = Type.Object({ checkNumber: Type.Optional(Type.String()) });

export const ClockBody = Type.Object({
  /** ISO 8601 instant to jump to. */
  set: Type.Optional(Type.String()),
  advanceMs: Type.Optional(Type.Integer()),
  frozen: Type.Optional(Type.Boolean()),
});
export type ClockInput = Type.Static<typeof ClockBody>;

export const BrokenBody = Type.Object({
  mode: Type.Union([...Object.keys(BROKEN_MODES).map((m) => Type.Literal(m)), Type.Null()]),
});

export const TableNameBody = Type.Object({ name: Type.String() });
