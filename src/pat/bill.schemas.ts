import Type from 'typebox';
import { POS_MAX_CHECKS, POS_MAX_ITEMS, PosPartySize, PosQuantity, PosText } from '../pos/pos-limits.ts';
import { Nullable, Uuid } from '../server/schemas.ts';
import { PathId } from './venues.schemas.ts';

// Names, numbers and statuses of a bill are the POS's, within the limits the POS client enforces
// (pos/pos-limits.ts).

const Money = (description: string) => Type.Number({ description: `${description}; decimal in the venue's currency` });

export const BillItem = Type.Object(
  {
    id: Nullable(PosText({ description: 'POS item id (an integer id as its decimal string), null when the POS gives none' })),
    name: PosText(),
    quantity: PosQuantity(),
    unitPrice: Money('unit price'),
    price: Money('alias of unitPrice'),
    total: Money('unitPrice × quantity minus line discounts'),
  },
  { $id: 'BillItem', additionalProperties: false },
);

const CheckTotals = {
  subtotal: Money('items total before tax, tip and discount'),
  tax: Money('tax; may be 0 on inclusive-VAT systems'),
  tip: Money('tip already on the check'),
  discount: Money('discount applied'),
  total: Money('subtotal + tax + tip − discount'),
};

export const BillCheck = Type.Object(
  {
    checkNumber: PosText(),
    status: PosText({ description: "the check's state as the POS reports it" }),
    totals: Type.Object(CheckTotals),
    paymentMethod: Nullable(PosText()),
    items: Type.Array(BillItem, { maxItems: POS_MAX_ITEMS }),
  },
  { $id: 'BillCheck' },
);

export const Bill = Type.Object(
  {
    orderId: Uuid(),
    venueId: Uuid(),
    tableId: Uuid(),
    tableName: PosText(),
    status: Type.Literal('open'),
    partySize: Nullable(PosPartySize({ description: 'null for walk-ins' })),
    totals: Type.Object({
      ...CheckTotals,
      prepayment: Money('already paid through the deposit/prepayment flow'),
      paid: Money('Σ (amount − tip) of confirmed payments'),
      totalDue: Money('total − prepayment − paid, floored at 0: the amount to charge (plus any tip)'),
    }),
    checks: Type.Array(BillCheck, { maxItems: POS_MAX_CHECKS }),
  },
  { $id: 'Bill' },
);

export const VenueTableParams = Type.Object({ venueId: PathId('the venue id'), tableId: PathId('the table id from GET …/tables') });
