import type { ProblemList } from '../lib/errors.ts';
import type { TranslationsInput } from './translations.schemas.ts';

// Translations (spec 2.5, DESIGN 9): pure logic, tested without a database.
// Stored per entity as {"fr": {"description": "…"}, "de": {…}}, beside the base (default-locale)
// values. A read in a locale answers each translatable field's translation in that locale if there
// is one, else the base value: field by field.

export type Translations = Record<string, Record<string, string>>;

/** Which fields each entity translates (DESIGN 9; venue `description` too, per issue 5). */
export const TRANSLATABLE = {
  company: ['description', 'bookingMessage'],
  brand: ['widgetLegalText'],
  venue: ['bookingMessage', 'paymentPolicy', 'confirmationMessage', 'description'],
  area: ['name', 'description'],
} as const;

/**
 * A translation answers in place of its field, so it keeps that field's limit: an area's name is a
 * short text (255); the other translatable fields are free texts, whose limit the schema states.
 */
export const TRANSLATION_MAX_LENGTH: Readonly<Record<string, number>> = { name: 255 };

/** Records a problem for a locale given twice, a field given twice within one locale, or a translation longer than its field allows. */
export function checkTranslations(input: TranslationsInput | undefined, problems: ProblemList, path = 'translations'): void {
  if (!input) return;
  const locales = new Set<string>();
  input.forEach((element, i) => {
    if (locales.has(element.locale)) problems.add(`${path}[${i}].locale`, `"${element.locale}" is given more than once`);
    locales.add(element.locale);
    const fields = new Set<string>();
    element.data.forEach((entry, j) => {
      if (fields.has(entry.field)) problems.add(`${path}[${i}].data[${j}].field`, `"${entry.field}" is given more than once for this locale`);
      fields.add(entry.field);
      const max = TRANSLATION_MAX_LENGTH[entry.field];
      if (max !== undefined && entry.content != null && entry.content.length > max) {
        problems.add(`${path}[${i}].data[${j}].content`, `must be at most ${max} characters long (the ${entry.field} it translates is)`);
      }
    });
  });
}

/**
 * The stored translations after a write: each (locale, field) given is set to its content, or
 * removed when the content is null or empty; everything not named is kept. A locale left with no
 * field disappears.
 */
export function mergeTranslations(current: Translations, input: TranslationsInput | undefined): Translations {
  const next: Translations = {};
  for (const [locale, fields] of Object.entries(current ?? {})) next[locale] = { ...fields };
  for (const element of input ?? []) {
    const fields = (next[element.locale] ??= {});
    for (const { field, content } of element.data) {
      if (content === null || content === '') delete fields[field];
      else fields[field] = content;
    }
    if (Object.keys(fields).length === 0) delete next[element.locale];
  }
  return next;
}

/**
 * `base` with each of `fields` replaced by its translation in `locale` where there is one.
 * Without a locale, or for fields not translated into it, the base value is kept.
 */
export function localize<T extends Record<string, unknown>>(
  base: T,
  translations: Translations | null | undefined,
  locale: string | undefined,
  fields: readonly string[],
): T {
  if (!locale) return base;
  const own = translations?.[locale];
  if (!own) return base;
  const out: Record<string, unknown> = { ...base };
  for (const field of fields) {
    const text = own[field];
    if (typeof text === 'string' && text !== '') out[field] = text;
  }
  return out as T;
}
