// What the rules share during one pos-check run: the client, the venue, and what earlier rules
// created (orders, payments), so later rules can build on them or skip with a reason.

import * as D from './decimal.ts';
import type { PosAnswer, PosHttp } from './http.ts';
import { isObject, type Json } from './shapes.ts';

export type RuleStatus = 'pass' | 'fail' | 'skip';
export interface Outcome { status: RuleStatus; detail: string }

export const pass = (detail: string): Outcome => ({ status: 'pass', detail });
export const fail = (detail: string): Outcome => ({ status: 'fail', detail });
export const skip = (detail: string): Outcome => ({ status: 'skip', detail });

export interface Created { id: string; checkNumber?: string }

export interface CheckContext {
  http: PosHttp;
  venue: string;
  /** Unique per run, so the orders and payments the kit creates are recognisable. */
  runId: string;
  sku?: string;
  payments: boolean;
  /** Table ids from GET /tables (as strings), once tables-shape has run. */
  tables: string[];
  /** a: plain order (create-order-shape); b: merged tables; c: with a known sku item. */
  orders: { a?: Created; b?: Created; c?: Created };
  /** Orders whose status the kit knows, because it created or closed them. */
  known: Map<string, 'open' | 'closed'>;
  /** The full payment of payment-forward, read back by payment-status. */
  fullPayment?: { orderId: string; paymentId: string };
}

export interface RuleDef {
  id: string;
  title: string;
  run(ctx: CheckContext): Promise<Outcome>;
}

const enc = encodeURIComponent;
export const venuePath = (ctx: CheckContext) => `/venue/${enc(ctx.venue)}`;
export const orderPath = (ctx: CheckContext, orderId: string) => `${venuePath(ctx)}/orders/${enc(orderId)}`;

export function listOrders(ctx: CheckContext, query: Record<string, string> = {}): Promise<PosAnswer> {
  const qs = new URLSearchParams(query).toString();
  return ctx.http.get(`${venuePath(ctx)}/orders${qs ? `?${qs}` : ''}`);
}

export const getOrder = (ctx: CheckContext, orderId: string) => ctx.http.get(orderPath(ctx, orderId));

/** POSTs a create-order body; the id is kept whenever the POS answered 2xx with one (even malformed). */
export async function createOrder(ctx: CheckContext, body: Json): Promise<{ answer: PosAnswer; created?: Created }> {
  const answer = await ctx.http.post(`${venuePath(ctx)}/orders`, body);
  if (answer.status < 200 || answer.status >= 300 || !isObject(answer.json)) return { answer };
  const { id, checkNumber } = answer.json;
  if (id === undefined || id === null || id === '') return { answer };
  const created: Created = { id: String(id), ...(typeof checkNumber === 'string' ? { checkNumber } : {}) };
  ctx.known.set(created.id, 'open');
  return { answer, created };
}

export function baseOrderBody(ctx: CheckContext, label: string, tables: string[]): Json {
  return { id: `pos-check-${ctx.runId}-${label}`, tables, guestName: `pos-check ${label}`, partySize: 2, prepayment: 0 };
}

export function arrayOf(answer: PosAnswer): Json[] | undefined {
  return Array.isArray(answer.json) ? answer.json.filter(isObject) : undefined;
}

/** What is still owed on an order as read: Σ (totalAmount + tax + tip − discount) of non-void checks − prepayment. */
export function orderBalance(order: Json): D.Dec {
  const checks = Array.isArray(order.checks) ? order.checks.filter(isObject) : [];
  const n = (v: unknown) => (typeof v === 'number' ? D.toDec(v) : D.ZERO);
  const settled = D.sum(checks.filter((c) => c.status !== 'void').map((c) =>
    D.sub(D.add(D.add(n(c.totalAmount), n(c.tax)), n(c.tip)), n(c.discount))));
  return D.sub(settled, n(order.prepayment));
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
