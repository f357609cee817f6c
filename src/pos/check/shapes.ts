// Shape checks of what a POS answers, per spec 2.6 and 2.7. Each returns the list of problems found
// (empty = conforms), phrased so a vendor can find the field: "order 1001 check 2 item 0: price is string".

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

export function isIsoTimestamp(v: unknown): v is string {
  return typeof v === 'string' && ISO_WITH_OFFSET.test(v) && !Number.isNaN(Date.parse(v));
}

type Check = (v: unknown) => boolean;
const str: Check = (v) => typeof v === 'string';
const num: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const int: Check = (v) => Number.isInteger(v);

function field(obj: Json, key: string, ok: Check, want: string, where: string, problems: string[]): void {
  if (!(key in obj)) problems.push(`${where}: ${key} is missing`);
  else if (!ok(obj[key])) problems.push(`${where}: ${key} should be ${want}, is ${JSON.stringify(obj[key])} (${typeName(obj[key])})`);
}

/** Spec 2.6: an array of {id: string, name: string} with unique ids. */
export function tableListProblems(body: unknown): string[] {
  if (!Array.isArray(body)) return [`expected an array, got ${typeName(body)}`];
  const problems: string[] = [];
  const seen = new Set<unknown>();
  body.forEach((t, i) => {
    if (!isObject(t)) return void problems.push(`table ${i}: not an object`);
    field(t, 'id', (v) => str(v) && v !== '', 'a non-empty string', `table ${i}`, problems);
    field(t, 'name', str, 'a string', `table ${i}`, problems);
    if (seen.has(t.id)) problems.push(`table ${i}: id ${JSON.stringify(t.id)} is not unique`);
    seen.add(t.id);
  });
  return problems;
}

/** Spec 2.7 item: {id: integer, name: string, price: number, quantity: integer}; extras allowed. */
export function itemProblems(item: unknown, where: string): string[] {
  if (!isObject(item)) return [`${where}: not an object`];
  const problems: string[] = [];
  field(item, 'id', int, 'an integer', where, problems);
  field(item, 'name', str, 'a string', where, problems);
  field(item, 'price', num, 'a number', where, problems);
  field(item, 'quantity', int, 'an integer', where, problems);
  return problems;
}

/** Spec 2.7 check (POS-22). */
export function checkProblems(check: unknown, where: string): string[] {
  if (!isObject(check)) return [`${where}: not an object`];
  const problems: string[] = [];
  field(check, 'checkNumber', str, 'a string', where, problems);
  field(check, 'status', str, 'a string', where, problems);
  for (const key of ['totalAmount', 'tax', 'tip', 'discount']) field(check, key, num, 'a number', where, problems);
  field(check, 'paymentMethod', str, 'a string', where, problems);
  field(check, 'items', Array.isArray, 'an array', where, problems);
  if (Array.isArray(check.items)) check.items.forEach((it, i) => problems.push(...itemProblems(it, `${where} item ${i}`)));
  return problems;
}

/** Spec 2.7 order (POS-21), with its checks and items. */
export function orderProblems(order: unknown): string[] {
  if (!isObject(order)) return [`order: not an object (${typeName(order)})`];
  const where = `order ${typeof order.id === 'string' ? order.id : JSON.stringify(order.id)}`;
  const problems: string[] = [];
  field(order, 'id', (v) => str(v) && v !== '', 'a non-empty string', where, problems);
  field(order, 'status', (v) => v === 'open' || v === 'closed', "'open' or 'closed'", where, problems);
  field(order, 'tables', (v) => Array.isArray(v) && v.every(str), 'an array of strings', where, problems);
  field(order, 'partySize', int, 'an integer', where, problems);
  field(order, 'guestName', str, 'a string', where, problems);
  field(order, 'checks', Array.isArray, 'an array', where, problems);
  field(order, 'createdAt', isIsoTimestamp, 'an ISO 8601 timestamp with offset', where, problems);
  field(order, 'updatedAt', isIsoTimestamp, 'an ISO 8601 timestamp with offset', where, problems);
  field(order, 'closedAt', (v) => v === null || isIsoTimestamp(v), 'null or an ISO 8601 timestamp with offset', where, problems);
  if (order.status === 'open' && order.closedAt !== null && 'closedAt' in order) problems.push(`${where}: open but closedAt is set`);
  if (order.status === 'closed' && order.closedAt === null) problems.push(`${where}: closed but closedAt is null`);
  if (Array.isArray(order.checks)) {
    order.checks.forEach((c, i) => problems.push(...checkProblems(c, `${where} check ${isObject(c) && typeof c.checkNumber === 'string' ? c.checkNumber : i}`)));
  }
  return problems;
}

/** Deep equality of JSON values, ignoring the order of object keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  const canon = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canon);
    if (isObject(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])]));
    return v;
  };
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}
