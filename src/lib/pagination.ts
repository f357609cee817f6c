import Type from 'typebox';

// offset/limit query parameters. Out-of-range values are a 400 naming the field (DESIGN 5, 9),
// never silently clamped.

export function pageQuery(opts: { defaultLimit: number; maxLimit: number; minLimit?: number }) {
  return {
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'records to skip (default 0)' })),
    limit: Type.Optional(
      Type.Integer({
        minimum: opts.minLimit ?? 0,
        maximum: opts.maxLimit,
        default: opts.defaultLimit,
        description: `page size, ${opts.minLimit ?? 0} to ${opts.maxLimit} (default ${opts.defaultLimit})`,
      }),
    ),
  };
}

export interface Page {
  offset: number;
  limit: number;
}

/** `%` and `_` are wildcards in LIKE; a user's text must match literally. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
