import Type, { type Static } from 'typebox';
import { Nullable, Timestamp } from '../server/schemas.ts';

export const SubmitPaymentBody = Type.Object({
  externalReference: Type.String({ minLength: 1, maxLength: 128, description: 'your idempotency key, unique per partner; at most 128 characters' }),
  amount: Type.Number({ exclusiveMinimum: 0, description: 'tip-inclusive amount charged (items + tax + tip − discount), in the venue currency' }),
  type: Type.Enum(['full', 'partial']),
  currency: Type.Optional(Type.String({ format: 'iso-currency', description: 'ISO 4217; echoed, not checked against the venue' })),
  paymentMethod: Type.Optional(Type.String({ maxLength: 200, description: 'free-form' })),
  tip: Type.Optional(Type.Number({ minimum: 0, description: 'the part of amount that is tip' })),
});
export type SubmitPaymentBody = Static<typeof SubmitPaymentBody>;

export const Payment = Type.Object(
  {
    paymentId: Type.String({ format: 'uuid' }),
    orderId: Type.String({ format: 'uuid' }),
    status: Type.Enum(['pending', 'confirmed', 'failed']),
    failureCode: Nullable(
      Type.Enum(['pos_confirmation_timeout', 'pos_check_not_found', 'pos_overpaid', 'pos_config_missing'], {
        description: 'set only when status is failed',
      }),
    ),
    type: Type.Enum(['full', 'partial']),
    amount: Type.Number(),
    currency: Nullable(Type.String()),
    paymentMethod: Nullable(Type.String()),
    tip: Nullable(Type.Number()),
    externalReference: Type.String(),
    orderStatus: Type.Enum(['open', 'closed']),
    recordedAt: Timestamp,
    confirmedAt: Nullable(Timestamp),
  },
  { $id: 'Payment' },
);
export type Payment = Static<typeof Payment>;

export const OrderParams = Type.Object({ venueId: Type.String(), orderId: Type.String() });
export const PaymentParams = Type.Object({ venueId: Type.String(), orderId: Type.String(), externalReference: Type.String() });
