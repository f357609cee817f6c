import Type from 'typebox';
import { Int64, Str, Uuid } from '../server/schemas.ts';

// DESIGN 8.3a: an update notice from the RMS. A trigger, not the truth: Tableside re-reads the booking.

/** The RMS's booking id: a text id or a number (read as its decimal text). */
const EntityId = (description: string) =>
  Type.Union([Str(200, { minLength: 1 }), Int64(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)], { description });

export const NoticeBody = Type.Object(
  {
    entity: Type.Union([Type.Literal('booking')], { description: 'what changed; only "booking" is known (another value is a 400)' }),
    entityId: Type.Optional(EntityId("the RMS's booking id (entityId or entity_id is required)")),
    entity_id: Type.Optional(EntityId('the same, snake_case spelling')),
    action: Type.Union([Type.Literal('update'), Type.Literal('cancel'), Type.Literal('canceled')]),
    data: Type.Optional(Type.Unknown({ description: 'ignored: the booking is re-read from GET /booking/{entityId}' })),
  },
  {
    description: 'An update notice (DESIGN 8.3a).',
    anyOf: [{ required: ['entityId'] }, { required: ['entity_id'] }],
    'x-problem': 'is required (entityId or entity_id)',
    'x-field': 'entityId',
  },
);
export type NoticeBody = Type.Static<typeof NoticeBody>;

export const NoticeHeaders = Type.Object({
  'webhook-id': Type.Optional(Str(200, { description: 'the same id on every retry of one notice; a repeat is absorbed' })),
});

export const NoticeAccepted = Type.Object({
  status: Type.Union([Type.Literal('accepted'), Type.Literal('duplicate')]),
  id: Uuid({ description: 'the notice id Tableside recorded (the first one for a duplicate)' }),
});
