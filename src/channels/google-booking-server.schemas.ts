import Type, { type Static } from 'typebox';
import { MAX_PARTY_SIZE, MAX_UNIX_SECONDS } from '../rms/rms-client.fns.ts';
import { Int32, Int64, Str, Uuid } from '../server/schemas.ts';
import { CAUSE_OF, type V3Status } from './google-booking-server.fns.ts';

// Google's Booking Server API v3 messages (DESIGN 8.4b) in Google's JSON names (snake_case). int64
// fields are read as strings or numbers and written as strings (CHN-15). Unknown fields are ignored;
// a wrong type or malformed JSON is HTTP 400 (an infrastructure error, never a booking_failure).

/** Seconds (a Unix time or a duration) as Google's int64: at most 11 digits, from 1970 to the year 5138. */
const SECONDS_DIGITS = String(MAX_UNIX_SECONDS).length;
const Int64In = (description: string) =>
  Type.Union([
    Type.String({ maxLength: SECONDS_DIGITS, pattern: `^[0-9]{1,${SECONDS_DIGITS}}$`, description: 'int64 as a decimal string' }),
    Int64(0, MAX_UNIX_SECONDS, { description: 'int64 as a JSON number' }),
  ], { description: `${description}; int64: a decimal string or a number, 0 to ${MAX_UNIX_SECONDS}` });
const Int64Out = (description: string) =>
  Type.String({ maxLength: SECONDS_DIGITS, pattern: `^[0-9]{1,${SECONDS_DIGITS}}$`, description: `${description}; int64 as a decimal string` });
const Text = (max: number, description?: string) => Str(max, description ? { description } : {});

export const ResourceIds = Type.Object({
  staff_id: Type.Optional(Text(200)),
  room_id: Type.Optional(Text(200)),
  party_size: Type.Optional(Int32(1, 100)),
});

export const SlotTimeIn = Type.Object({
  service_id: Type.Optional(Text(200, 'always "dining"; another value is never available')),
  start_sec: Int64In('the slot start, Unix seconds'),
  duration_sec: Type.Optional(Int64In('the slot length in seconds, echoed')),
  availability_tag: Type.Optional(Text(200)),
  resource_ids: Type.Optional(ResourceIds),
  confirmation_mode: Type.Optional(Text(100)),
});

export const BatchAvailabilityLookupRequest = Type.Object({
  merchant_id: Text(64, "the content venue's id"),
  slot_time: Type.Array(SlotTimeIn, { maxItems: 1000 }),
});
export type BatchAvailabilityLookupRequest = Static<typeof BatchAvailabilityLookupRequest>;

export const BatchAvailabilityLookupResponse = Type.Object({
  slot_time_availability: Type.Array(Type.Object({
    slot_time: Type.Object({
      service_id: Type.Optional(Text(200)),
      start_sec: Int64Out('as requested'),
      duration_sec: Type.Optional(Int64Out('as requested')),
      availability_tag: Type.Optional(Text(200)),
      resource_ids: Type.Optional(ResourceIds),
      confirmation_mode: Type.Optional(Text(100)),
    }, { description: 'the slot time as requested, int64 fields as strings' }),
    available: Type.Boolean(),
  }), { maxItems: 1000, description: 'one per requested slot time, in the order asked' }),
});

// What the schema can state, it states (issue 30): a generator or a client reads the rules here,
// and the validator answers 400 naming the field before any call to the reservation system.
const SERVICE_ID_IN = Type.Literal('dining', { description: 'the only service a venue has' });

export const SlotIn = Type.Object({
  merchant_id: Text(64, "the content venue's id"),
  service_id: Type.Optional(SERVICE_ID_IN),
  start_sec: Int64In('the slot start, Unix seconds'),
  duration_sec: Type.Optional(Int64In('the slot length in seconds, echoed')),
  availability_tag: Type.Optional(Text(200)),
  resources: Type.Optional(ResourceIds),
  confirmation_mode: Type.Optional(Text(100)),
});

/** A create's slot: the party size is what the table is booked for, so it is required. */
const CreateSlotIn = Type.Object({
  ...SlotIn.properties,
  resources: Type.Object({ ...ResourceIds.properties, party_size: Int32(1, 100) }),
});

/** The names are required: the reservation system's contract books under the guest's names (8.2). */
const Name = Str(100, { minLength: 1 });

export const UserInformation = Type.Object({
  user_id: Text(200),
  given_name: Name,
  family_name: Name,
  telephone: Type.Optional(Text(40)),
  email: Type.Optional(Text(254)),
  language_code: Type.Optional(Text(20)),
});

export const CreateBookingRequest = Type.Object({
  slot: CreateSlotIn,
  user_information: UserInformation,
  idempotency_token: Type.Optional(Text(200, 'the same token answers the same response and creates nothing')),
  additional_request: Type.Optional(Text(2000, "the guest's notes")),
  payment_information: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'ignored' })),
});
export type CreateBookingRequest = Static<typeof CreateBookingRequest>;

export const UpdateBookingRequest = Type.Object({
  booking: Type.Object({
    booking_id: Uuid(),
    status: Type.Optional(Text(64, 'CANCELED cancels; another status than the current one is a 400')),
    slot: Type.Optional(Type.Partial(SlotIn)),
  }),
  update_mask: Type.Optional(Text(500)),
});
export type UpdateBookingRequest = Static<typeof UpdateBookingRequest>;

export const BookingIdRequest = Type.Object({ booking_id: Uuid() });
export const ListBookingsRequest = Type.Object({ user_id: Text(200) });

/** The most bookings ListBookings answers (the user's newest). */
export const LIST_BOOKINGS_LIMIT = 500;

export const V3_STATUSES: readonly V3Status[] = ['CONFIRMED', 'PENDING_MERCHANT_CONFIRMATION', 'CANCELED', 'NO_SHOW', 'DECLINED_BY_MERCHANT', 'FAILED'];
const PREPAYMENT_STATUSES = ['PREPAYMENT_PROVIDED', 'PREPAYMENT_NOT_PROVIDED'] as const;
const CAUSES = [...new Set([...Object.values(CAUSE_OF), 'CAUSE_UNSPECIFIED'])];

const SlotOut = Type.Object({
  merchant_id: Uuid({ description: "the content venue's id" }),
  service_id: Type.Enum(['dining']),
  start_sec: Int64Out('the booking start, Unix seconds'),
  duration_sec: Type.Optional(Int64Out('as requested')),
  resources: Type.Object({ party_size: Int32(1, MAX_PARTY_SIZE) }),
});

export const BookingOut = Type.Object({
  booking_id: Uuid({ description: "Tableside's booking id" }),
  slot: SlotOut,
  user_information: Type.Object({
    user_id: Text(200), given_name: Text(100), family_name: Text(100), telephone: Text(40), email: Text(254),
  }),
  status: Type.Enum([...V3_STATUSES]),
  payment_information: Type.Object({ prepayment_status: Type.Enum([...PREPAYMENT_STATUSES]) }),
});

export const BookingFailure = Type.Object({
  cause: Type.Enum(CAUSES, { description: 'mapped one to one from the reservation system\'s code; CAUSE_UNSPECIFIED only for a code that has no cause' }),
  description: Type.Optional(Text(2000, "the reservation system's code and Tableside's message")),
});

export const BookingResponse = Type.Object({
  booking: Type.Optional(BookingOut),
  booking_failure: Type.Optional(BookingFailure),
}, { description: 'booking on success, booking_failure on a business failure (HTTP 200 either way)' });

export const GetBookingStatusResponse = Type.Object({
  booking_id: Uuid(),
  booking_status: Type.Enum([...V3_STATUSES]),
  prepayment_status: Type.Enum([...PREPAYMENT_STATUSES]),
});

export const ListBookingsResponse = Type.Object({ bookings: Type.Array(BookingOut, { maxItems: LIST_BOOKINGS_LIMIT }) });

export const Empty = Type.Object({});
