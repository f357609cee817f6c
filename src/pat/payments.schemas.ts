import Type, { type Static } from 'typebox';
import { MAX_PARAM_LENGTH } from '../server/input-guards.ts';
import { CurrencyCode, MoneyIn, Nullable, Str, Timestamp, Uuid } from '../server/schemas.ts';
import { PathId } from './venues.schemas.ts';

/** The partner's idempotency key: 1..128 characters (LIM-18, LIM-19), no NUL. */
const ExternalReference = (description?: string) => Str(128, { minLength: 1, ...(description ? { description } : {}) });

const MONEY_RULES =
  'with at most the decimals of the venue currency (EUR 2, JPY 0, KWD 3; more is a 400, never rounded) and at most ' +
  '999,999,999,999,999 minor units';

export const SubmitPaymentBody = Type.Object({
  externalReference: ExternalReference('your idempotency key, unique per partner; at most 128 characters'),
  amount: MoneyIn({
    exclusiveMinimum: 0,
    description: `tip-inclusive amount charged (items + tax + tip − discount), in the venue currency, ${MONEY_RULES}`,
  }),
  type: Type.Enum(['full', 'partial']),
  currency: Type.Optional(CurrencyCode({ description: 'ISO 4217; echoed, not checked against the venue' })),
  paymentMethod: Type.Optional(Str(200, { description: 'free-form' })),
  tip: Type.Optional(MoneyIn({ minimum: 0, description: `the part of amount that is tip: at most amount, ${MONEY_RULES}` })),
});
export type SubmitPaymentBody = Static<typeof SubmitPaymentBody>;

export const Payment = Type.Object(
  {
    paymentId: Uuid(),
    orderId: Uuid(),
    status: Type.Enum(['pending', 'confirmed', 'failed']),
    failureCode: Nullable(
      Type.Enum(['pos_confirmation_timeout', 'pos_check_not_found', 'pos_overpaid', 'pos_config_missing'], {
        description: 'set only when status is failed',
      }),
    ),
    type: Type.Enum(['full', 'partial']),
    amount: Type.Number(),
    currency: Nullable(CurrencyCode({ description: 'as the request gave it' })),
    paymentMethod: Nullable(Str(200)),
    tip: Nullable(Type.Number({ minimum: 0 })),
    externalReference: ExternalReference(),
    orderStatus: Type.Enum(['open', 'closed']),
    recordedAt: Timestamp,
    confirmedAt: Nullable(Timestamp),
  },
  { $id: 'Payment' },
);
export type Payment = Static<typeof Payment>;

export const OrderParams = Type.Object({ venueId: PathId('the venue id'), orderId: PathId('the orderId of the bill') });
export const PaymentParams = Type.Object({
  venueId: PathId('the venue id'),
  orderId: PathId('the orderId of the bill'),
  // Up to the router's limit, not 128: a longer reference is simply no such payment (404), like an
  // unknown one (LIM-22).
  externalReference: Str(MAX_PARAM_LENGTH, {
    minLength: 1,
    description: 'the externalReference the payment was submitted with; a longer one than 128 characters matches no payment (404)',
  }),
});
