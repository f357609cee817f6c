import Type from 'typebox';
import { Nullable } from '../server/schemas.ts';

const Money = (description: string) => Type.Number({ description: `${description}; decimal in the venue's currency` });

export const BillItem = Type.Object(
  {
    id: Nullable(Type.String({ description: 'POS item id, null when the POS gives none' })),
    name: Type.String(),
    quantity: Type.Integer(),
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
    checkNumber: Type.String(),
    status: Type.String(),
    totals: Type.Object(CheckTotals),
    paymentMethod: Nullable(Type.String()),
    items: Type.Array(BillItem),
  },
  { $id: 'BillCheck' },
);

export const Bill = Type.Object(
  {
    orderId: Type.String({ format: 'uuid' }),
    venueId: Type.String(),
    tableId: Type.String(),
    tableName: Type.String(),
    status: Type.Literal('open'),
    partySize: Nullable(Type.Integer({ description: 'null for walk-ins' })),
    totals: Type.Object({
      ...CheckTotals,
      prepayment: Money('already paid through the deposit/prepayment flow'),
      paid: Money('Σ (amount − tip) of confirmed payments'),
      totalDue: Money('total − prepayment − paid, floored at 0: the amount to charge (plus any tip)'),
    }),
    checks: Type.Array(BillCheck),
  },
  { $id: 'Bill' },
);

export const VenueTableParams = Type.Object({ venueId: Type.String(), tableId: Type.String() });
