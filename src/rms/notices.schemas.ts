import Type from 'typebox';

// DESIGN 8.3a: an update notice from the RMS. A trigger, not the truth: Tableside re-reads the booking.

export const NoticeBody = Type.Object(
  {
    entity: Type.Union([Type.Literal('booking')], { description: 'what changed; only "booking" is known (another value is a 400)' }),
    entityId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$' }), Type.Integer()], { description: "the RMS's booking id" })),
    entity_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$' }), Type.Integer()], { description: 'the same, snake_case spelling' })),
    action: Type.Union([Type.Literal('update'), Type.Literal('cancel'), Type.Literal('canceled')]),
    data: Type.Optional(Type.Unknown({ description: 'ignored: the booking is re-read from GET /booking/{entityId}' })),
  },
  { description: 'An update notice (DESIGN 8.3a).' },
);
export type NoticeBody = Type.Static<typeof NoticeBody>;

export const NoticeHeaders = Type.Object({
  'webhook-id': Type.Optional(Type.String({ maxLength: 200, description: 'the same id on every retry of one notice; a repeat is absorbed' })),
});

export const NoticeAccepted = Type.Object({
  status: Type.Union([Type.Literal('accepted'), Type.Literal('duplicate')]),
  id: Type.String({ description: 'the notice id Tableside recorded (the first one for a duplicate)' }),
});
