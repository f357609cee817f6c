import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import dependentRequiredModule from 'ajv/dist/vocabularies/validation/dependentRequired.js';
import { isCountryCode } from './iso/countries.ts';
import { isCurrencyCode } from './iso/currencies.ts';
import { isIsoDateOrDateTime } from './iso/datetimes.ts';
import { isLanguageCode } from './iso/languages.ts';
import { isTimeZone } from './iso/timezones.ts';
import type { FieldProblems } from './errors.ts';

// JSON Schema validation shared by request validation and the POS client's response checks: one
// ajv setup (formats, our ISO formats) and one way to turn ajv's errors into `{ field: [problems] }`.

/** Formats our schemas use beyond JSON Schema's own; each has a readable problem sentence. */
export const CUSTOM_FORMATS: Record<string, { check: (v: string) => boolean; problem: string }> = {
  'iso-country': { check: isCountryCode, problem: 'must be an ISO 3166-1 alpha-2 country code (e.g. "ES")' },
  'iso-currency': { check: isCurrencyCode, problem: 'must be an ISO 4217 currency code (e.g. "EUR")' },
  'iso-language': { check: isLanguageCode, problem: 'must be an ISO 639-1 two-letter language code (e.g. "fr")' },
  'iana-timezone': { check: isTimeZone, problem: 'must be an IANA time zone name (e.g. "Europe/Madrid")' },
  'iso-date-or-date-time': {
    check: isIsoDateOrDateTime,
    problem: 'must be an ISO 8601 date (e.g. "2026-01-15") or date-time (e.g. "2026-01-15T18:30:00Z")',
  },
};

const FORMAT_PROBLEM: Record<string, string> = {
  uri: 'must be an absolute URL',
  url: 'must be an absolute URL',
  email: 'must be an e-mail address',
  uuid: 'must be a UUID',
  'date-time': 'must be an ISO 8601 date-time with an offset',
  date: 'must be an ISO 8601 date (YYYY-MM-DD)',
  ...Object.fromEntries(Object.entries(CUSTOM_FORMATS).map(([name, f]) => [name, f.problem])),
};

// ajv-formats is CommonJS with a default export; under NodeNext its callable is `.default`.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
// JSON Schema 2019-09's `dependentRequired` (the latitude/longitude pair): ajv's draft-07 class
// leaves it out, so it is added from ajv's own vocabulary, with the same definition Ajv2019 uses.
const dependentRequired = ((dependentRequiredModule as any).default ?? dependentRequiredModule) as Parameters<Ajv['addKeyword']>[0];

/**
 * `validateSchema: false` for schemas of our own whose validity a test checks (the POS client's): a
 * process's first compilation otherwise compiles JSON Schema's meta-schema first, about a third of
 * the POS client's first checks in a fresh sandbox start (issue 28).
 */
export function newAjv(coerce: boolean, { validateSchema = true }: { validateSchema?: boolean } = {}): Ajv {
  const ajv = new Ajv({
    validateSchema,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: true,
    allErrors: true,
    verbose: true,
    strict: false,
  });
  addFormats(ajv);
  for (const [name, { check }] of Object.entries(CUSTOM_FORMATS)) ajv.addFormat(name, check);
  ajv.addKeyword(dependentRequired);
  // Lets a schema state its own problem sentence: `{ pattern: '…', 'x-problem': 'must be …' }`.
  ajv.addKeyword({ keyword: 'x-problem', schemaType: 'string' });
  // Lets an object's anyOf-of-required rule say which field its problem is reported under.
  ajv.addKeyword({ keyword: 'x-field', schemaType: 'string' });
  return ajv;
}

/** `/items/0/sku` -> `items[0].sku`. */
function fieldOf(error: ErrorObject): string {
  const parts = error.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  // A missing property is reported under its own name (`dependentRequired` too: the field to add).
  if (error.keyword === 'required' || error.keyword === 'dependentRequired') parts.push(String(error.params.missingProperty));
  // An "one of these fields" rule (anyOf of required) may name the field it reports under.
  const named = (error.parentSchema as Record<string, unknown> | undefined)?.['x-field'];
  if (error.keyword === 'anyOf' && typeof named === 'string') parts.push(named);
  let field = '';
  for (const part of parts) field += /^\d+$/.test(part) ? `[${part}]` : field ? `.${part}` : part;
  return field || 'body';
}

const TYPE_NAME: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

const OWN_PROBLEM_KEYWORDS = new Set(['pattern', 'format', 'enum', 'const', 'required', 'anyOf']);

function problemOf(error: ErrorObject): string {
  // A schema's own sentence says what its pattern, format or enum means, or when a conditional
  // (`then`) requires its fields; its length and type problems keep their general sentences.
  const own = (error.parentSchema as Record<string, unknown> | undefined)?.['x-problem'];
  if (typeof own === 'string' && OWN_PROBLEM_KEYWORDS.has(error.keyword)) return own;
  const p = error.params as Record<string, any>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'dependentRequired':
      return `is required when ${p.property} is given`;
    case 'type': {
      const types = (Array.isArray(p.type) ? p.type : String(p.type).split(',')).map((t: string) => TYPE_NAME[t] ?? t);
      return `must be ${types.join(' or ')}`;
    }
    case 'minimum':
      return `must be at least ${p.limit}`;
    case 'exclusiveMinimum':
      return `must be greater than ${p.limit}`;
    case 'maximum':
      return `must be at most ${p.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${p.limit}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters long`;
    case 'maxLength':
      return `must be at most ${p.limit} characters long`;
    case 'minItems':
      return `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `must have at most ${p.limit} items`;
    case 'uniqueItems':
      return 'must not contain duplicates';
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'format':
      return FORMAT_PROBLEM[p.format] ?? `must be a valid ${p.format}`;
    case 'pattern':
      return 'has an invalid format';
    case 'multipleOf':
      return `must be a multiple of ${p.multipleOf}`;
    case 'anyOf':
    case 'oneOf':
      return 'is not any of the accepted forms';
    default:
      return error.message ?? 'is invalid';
  }
}

/** The errors of the non-null branch of a failed `anyOf: [X, null]` on a value of X's type, else null. */
function nonNullBranchErrors(anyOf: ErrorObject, all: ErrorObject[]): ErrorObject[] | null {
  const branches = anyOf.schema as Array<{ type?: unknown }> | undefined;
  if (!Array.isArray(branches) || branches.length !== 2 || anyOf.data === null) return null;
  const nullIndex = branches.findIndex((b) => b?.type === 'null');
  if (nullIndex < 0) return null;
  const prefix = `${anyOf.schemaPath}/${1 - nullIndex}/`;
  const inner = all.filter((e) => e.schemaPath.startsWith(prefix));
  // A value of the wrong type altogether is best told "must be a string or null".
  if (inner.length === 0 || inner.some((e) => e.keyword === 'type' && e.instancePath === anyOf.instancePath)) return null;
  return inner;
}

/** Turns ajv's errors into `{ field: [problems] }`, one readable sentence per problem. */
export function fieldProblems(errors: ErrorObject[]): FieldProblems {
  // Within a failed anyOf, the branches' own errors are noise: keep the anyOf's summary, and the
  // branches' type names to say what would have been accepted.
  // A nullable field (`X or null`) holding a non-null value that X refuses for its own reasons (a
  // bad e-mail, too long) reports those reasons, not "must be X or null".
  const explained = new Set<ErrorObject>();
  const anyOfPaths = new Set<string>();
  for (const e of errors) {
    if (e.keyword !== 'anyOf') continue;
    const inner = nonNullBranchErrors(e, errors);
    if (inner) {
      for (const i of inner) explained.add(i);
      explained.add(e);
    }
    anyOfPaths.add(e.schemaPath);
  }
  const problems: FieldProblems = {};
  for (const error of errors) {
    if (error.keyword === 'anyOf' && explained.has(error)) continue;
    // A failed `if`/`then` says only that the `then` failed; the `then`'s own errors name the fields.
    if (error.keyword === 'if') continue;
    const insideAnyOf = !explained.has(error) && [...anyOfPaths].some((path) => error.schemaPath.startsWith(`${path}/`));
    if (insideAnyOf) continue;
    let problem = problemOf(error);
    if (error.keyword === 'anyOf') {
      const branches = ((error.schema as Array<{ type?: string }>) ?? []).map((b) => b.type).filter(Boolean);
      if (branches.length) problem = `must be ${branches.map((t) => TYPE_NAME[t!] ?? t).join(' or ')}`;
    }
    const field = fieldOf(error);
    const list = (problems[field] ??= []);
    if (!list.includes(problem)) list.push(problem);
  }
  return problems;
}
