import Type, { type Static } from 'typebox';
import { LanguageCode, Nullable } from '../server/schemas.ts';
import { LongText } from './content.schemas.ts';

// The translations array of a content write (spec 2.5): [{locale, data: [{field, content}]}].
// Which fields each entity translates is our decision (docs/decisions.md; TRANSLATABLE in translations.fns.ts);
// the schema names them, so an unknown field is a 400 naming its element.

export function TranslationsInput(entity: string, fields: readonly string[]) {
  return Type.Array(
    Type.Object({
      locale: LanguageCode({ description: 'ISO 639-1 language code, e.g. "fr"' }),
      data: Type.Array(
        Type.Object({
          field: Type.String({
            enum: [...fields],
            'x-problem': `must be a translatable field of a ${entity}: ${fields.join(', ')}`,
            description: `one of: ${fields.join(', ')}`,
          }),
          content: Nullable(LongText({ description: 'the translation (of a name: at most 255 characters); null or "" removes it (the base value is answered)' })),
        }),
        { maxItems: 50 },
      ),
    }),
    {
      maxItems: 200,
      description:
        `Translations of ${fields.join(', ')}. Each (locale, field) given is set, or removed when its content is null or ""; ` +
        'translations not named are kept.',
    },
  );
}

export type TranslationsInput = Static<ReturnType<typeof TranslationsInput>>;
