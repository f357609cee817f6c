import Type, { type Static } from 'typebox';
import { PageTotal } from '../lib/pagination.ts';
import { Nullable, Str, Uuid } from '../server/schemas.ts';
import { ContentPage, IdText, LONG_TEXT_MAX, LongText, OptionalNullable, Text } from './content.schemas.ts';
import { TRANSLATABLE } from './translations.fns.ts';
import { TranslationsInput } from './translations.schemas.ts';

// Areas of a venue (dining room, terrace…), under /venues/{venueId}/areas (spec 4.5 names the
// path; the record is ours: DESIGN 9, docs/content-api.md). At most one area per venue is the default.

export const Area = Type.Object({
  id: Uuid(),
  venueId: Uuid(),
  externalId: Str(255, { description: "the partner's own id of the area, unique within the venue" }),
  name: Str(255, { description: 'translatable (a translation of the name is at most 255 characters too)' }),
  description: Nullable(Str(LONG_TEXT_MAX, { description: 'translatable' })),
  isDefault: Type.Boolean({ description: 'the venue default area (at most one per venue)' }),
});
export type Area = Static<typeof Area>;

export const AreaList = Type.Object({ total: PageTotal({ description: 'areas across all pages' }), data: Type.Array(Area, { maxItems: 50 }) });

export const ListAreasQuery = Type.Object({ ...ContentPage() });
export type ListAreasQuery = Static<typeof ListAreasQuery>;

export const AreasParams = Type.Object({ venueId: IdText('venue id') });
export const AreaParams = Type.Object({ venueId: IdText('venue id'), areaId: IdText('area id') });

const translations = TranslationsInput('area', TRANSLATABLE.area);

export const CreateAreaBody = Type.Object({
  externalId: Text(),
  name: Text(),
  description: OptionalNullable(LongText()),
  isDefault: Type.Optional(
    Type.Boolean({ description: 'true makes it the default (the previous default stops being one); the first area of a venue is the default unless false is sent' }),
  ),
  translations: Type.Optional(translations),
});
export type CreateAreaBody = Static<typeof CreateAreaBody>;

export const UpdateAreaBody = Type.Object({
  externalId: Type.Optional(Text()),
  name: Type.Optional(Text()),
  description: OptionalNullable(LongText()),
  isDefault: Type.Optional(Type.Boolean({ description: 'true makes it the default; false leaves the venue without one if it was' })),
  translations: Type.Optional(translations),
});
export type UpdateAreaBody = Static<typeof UpdateAreaBody>;
