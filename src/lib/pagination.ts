import Type, { type TSchemaOptions } from 'typebox';

// offset/limit query parameters. Out-of-range values are a 400 naming the field (DESIGN 5, 9),
// never silently clamped.

/** The largest offset a list accepts: a bigger one is a 400 naming it, not a database range error. */
const MAX_OFFSET = 1_000_000_000;

export function pageQuery(opts: { defaultLimit: number; maxLimit: number; minLimit?: number; what?: string }) {
  return {
    offset: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: 0,
        maximum: MAX_OFFSET,
        default: 0,
        description: `${opts.what ?? 'records'} to skip (default 0)`,
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: opts.minLimit ?? 0,
        maximum: opts.maxLimit,
        default: opts.defaultLimit,
        description: `page size, ${opts.minLimit ?? 0} to ${opts.maxLimit} (default ${opts.defaultLimit})`,
      }),
    ),
  };
}

/** The `total` of a list: a count of rows, which PostgreSQL answers as a bigint. */
export const PageTotal = (opts: TSchemaOptions = {}) =>
  Type.Integer({ format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, ...opts });

export interface Page {
  offset: number;
  limit: number;
}

/** `%` and `_` are wildcards in LIKE; a user's text must match literally. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
