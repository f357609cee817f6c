// One text per JSON value whatever the order of its keys, for fingerprints of request bodies (the
// channel API's idempotency check, the RMS notices' duplicate check): two bodies that differ only
// in key order must hash alike.

/**
 * JSON with the keys of every object sorted by UTF-16 code unit (integer-like keys too, which
 * JSON.stringify would put first). A key whose value is undefined is left out and an undefined
 * array element is null, as JSON.stringify does, so a body and its copy with an optional field
 * spelled out as undefined are the same text. For plain JSON values (no Date, Map or toJSON).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
