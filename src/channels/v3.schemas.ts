import Type, { type Static } from 'typebox';


// Google's Booking Server API v3 messages (DESIGN 8.4b) in Google's JSON names (snake_case). int64
// fields are read as strings or numbers and written as strings (CHN-15). Unknown fields are ignored;
// a wrong type or malformed JSON is HTTP 400 (an infrastructure error, never a booking_failure).

const Int64In = Type.Union([Type.String({ pattern: '^-?[0-9]{1,18}$' }), Type.Integer()], { description: 'int64: a decimal string or a number' });
const Int64Out = Type.String({ pattern: '^-?[0-9]+$', description: 'int64 as a decimal string' });
const Text = (max: number) => Type.String({ maxLength: max, pattern: '^[^\\u0000]*$' });

export const ResourceIds = Type.Object({
  staff_id: Type.Optional(Text(200)),
  room_id: Type.Optional(Text(200)),
  party_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});

export const SlotTimeIn = Type.Object({
  service_id: Type.Optional(Text(200)),
  start_sec: Int64In,
  duration_sec: Type.Optional(Int64In),
  availability_tag: Type.Optional(Text(200)),
  resource_ids: Type.Optional(ResourceIds),
  confirmation_mode: Type.Optional(Text(100)),
});

export const BatchAvailabilityLookupRequest = Type.Object({
  merchant_id: Text(64),
  slot_time: Type.Array(SlotTimeIn, { maxItems: 1000 }),
});
export type BatchAvailabilityLookupRequest = Static<typeof BatchAvailabilityLookupRequest>;

export const BatchAvailabilityLookupResponse = Type.Object({
  slot_time_availability: Type.Array(Type.Object({
    slot_time: Type.Object({
      service_id: Type.Optional(Type.String()),
      start_sec: Int64Out,
      duration_sec: Type.Optional(Int64Out),
      availability_tag: Type.Optional(Type.String()),
      resource_ids: Type.Optional(ResourceIds),
      confirmation_mode: Type.Optional(Type.String()),
    }),
    available: Type.Boolean(),
  })),
});

export const SlotIn = Type.Object({
  merchant_id: Text(64),
  service_id: Type.Optional(Text(200)),
  start_sec: Int64In,
  duration_sec: Type.Optional(Int64In),
  availability_tag: Type.Optional(Text(200)),
  resources: Type.Optional(ResourceIds),
  confirmation_mode: Type.Optional(Text(100)),
});

export const UserInformation = Type.Object({
  user_id: Text(200),
  given_name: Type.Optional(Text(100)),
  family_name: Type.Optional(Text(100)),
  telephone: Type.Optional(Text(40)),
  email: Type.Optional(Text(254)),
  language_code: Type.Optional(Text(20)),
});

export const CreateBookingRequest = Type.Object({
  slot: SlotIn,
  user_information: UserInformation,
  idempotency_token: Type.Optional(Text(200)),
  additional_request: Type.Optional(Text(2000)),
  payment_information: Type.Optional(Type.Object({}, { additionalProperties: true })),
});
export type CreateBookingRequest = Static<typeof CreateBookingRequest>;

export const UpdateBookingRequest = Type.Object({
  booking: Type.Object({
    booking_id: Type.String({ format: 'uuid' }),
    status: Type.Optional(Text(64)),
    slot: Type.Optional(Type.Partial(SlotIn)),
  }),
  update_mask: Type.Optional(Text(500)),
});
export type UpdateBookingRequest = Static<typeof UpdateBookingRequest>;

export const BookingIdRequest = Type.Object({ booking_id: Type.String({ format: 'uuid' }) });
export const ListBookingsRequest = Type.Object({ user_id: Text(200) });

const SlotOut = Type.Object({
  merchant_id: Type.String(),
  service_id: Type.String(),
  start_sec: Int64Out,
  duration_sec: Type.Optional(Int64Out),
  resources: Type.Object({ party_size: Type.Integer() }),
});

export const BookingOut = Type.Object({
  booking_id: Type.String(),
  slot: SlotOut,
  user_information: Type.Object({
    user_id: Type.String(), given_name: Type.String(), family_name: Type.String(), telephone: Type.String(), email: Type.String(),
  }),
  status: Type.String(),
  payment_information: Type.Object({ prepayment_status: Type.String() }),
});

export const BookingFailure = Type.Object({ cause: Type.String(), description: Type.Optional(Type.String()) });

export const BookingResponse = Type.Object({
  booking: Type.Optional(BookingOut),
  booking_failure: Type.Optional(BookingFailure),
});

export const GetBookingStatusResponse = Type.Object({
  booking_id: Type.String(),
  booking_status: Type.String(),
  prepayment_status: Type.String(),
});

export const ListBookingsResponse = Type.Object({ bookings: Type.Array(BookingOut) });

export const Empty = Type.Object({});
