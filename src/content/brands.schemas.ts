import Type, { type Static } from 'typebox';
import { PageTotal } from '../lib/pagination.ts';
import { Nullable, Str, UrlText, Uuid } from '../server/schemas.ts';
import { ContentPage, HttpUrl, IdText, LongText, OptionalNullable, Ref, Text } from './content.schemas.ts';
import { TRANSLATABLE } from './translations.fns.ts';
import { TranslationsInput } from './translations.schemas.ts';

// Brand (spec 2.3, 4.4). widgetLegalText and bookingApproach are write fields: stored for the
// booking widget, never answered.

/** How bookings made through the brand's widget are confirmed (DESIGN 8 booking states). */
export const BOOKING_APPROACHES = ['instant', 'request'] as const;

export const Brand = Type.Object({
  id: Uuid(),
  name: Str(255),
  company: Ref,
  logo: Nullable(HttpUrl({ description: 'URL of the logo' })),
  fbInstalled: Nullable(Type.Boolean()),
  igInstalled: Nullable(Type.Boolean()),
  fbInstallLink: UrlText({ description: 'read-only, generated' }),
});
export type Brand = Static<typeof Brand>;

export const BrandList = Type.Object({ total: PageTotal({ description: 'brands across all pages' }), data: Type.Array(Brand, { maxItems: 50 }) });

export const ListBrandsQuery = Type.Object({ ...ContentPage() });
export type ListBrandsQuery = Static<typeof ListBrandsQuery>;

export const BrandParams = Type.Object({ brandId: IdText('brand id') });

const optional = {
  logo: OptionalNullable(HttpUrl({ description: 'URL of the logo; null removes it' })),
  widgetLegalText: OptionalNullable(LongText({ description: 'write field: legal text of the booking widget (translatable)' })),
  bookingApproach: OptionalNullable(
    Type.String({
      enum: [...BOOKING_APPROACHES],
      'x-problem': `must be one of: ${BOOKING_APPROACHES.join(', ')}`,
      description: 'write field: "instant" (bookings confirmed at once) or "request" (the venue confirms)',
    }),
  ),
  fbInstalled: OptionalNullable(Type.Boolean({ description: 'whether the Facebook booking button is installed' })),
  igInstalled: OptionalNullable(Type.Boolean({ description: 'whether the Instagram booking button is installed' })),
  translations: Type.Optional(TranslationsInput('brand', TRANSLATABLE.brand)),
};

export const CreateBrandBody = Type.Object({
  name: Text(),
  company: IdText('id of one of your companies'),
  ...optional,
});
export type CreateBrandBody = Static<typeof CreateBrandBody>;

/** name is mandatory (spec 4.4); the other fields change only when given. */
export const UpdateBrandBody = Type.Object({ name: Text(), ...optional });
export type UpdateBrandBody = Static<typeof UpdateBrandBody>;
