// Rules on the payment extension (DESIGN 6.2): forwarding, idempotent replay, status endpoint.
// Run only with --payments: they pay (and so close) orders the kit created.

import {
  baseOrderBody, createOrder, fail, getOrder, listOrders, orderBalance, orderPath, pass, skip, sleep,
  arrayOf, type CheckContext, type Outcome, type RuleDef,
} from './context.ts';
import * as D from './decimal.ts';
import { describe, type PosAnswer } from './http.ts';
import { isObject, type Json } from './shapes.ts';

const TERMINAL_WAIT_MS = 30_000;
const POLL_MS = 250;

interface PaymentBody { paymentId: string; type: 'full' | 'partial'; amount: number; tip: number; currency: string; paymentMethod: string }
interface Terminal { status: 'confirmed' | 'failed'; failureCode?: string; trail: string }

const forward = (ctx: CheckContext, orderId: string, body: PaymentBody) => ctx.http.post(`${orderPath(ctx, orderId)}/payments`, body);
const statusOf = (ctx: CheckContext, orderId: string, paymentId: string) =>
  ctx.http.get(`${orderPath(ctx, orderId)}/payments/${encodeURIComponent(paymentId)}`);

function answerStatus(a: PosAnswer): string | undefined {
  return isObject(a.json) && typeof a.json.status === 'string' ? a.json.status : undefined;
}

/** Follows a forwarded payment to confirmed or failed (polling the status endpoint while pending). */
async function untilTerminal(ctx: CheckContext, orderId: string, paymentId: string, first: PosAnswer): Promise<Terminal | string> {
  const terminal = (a: PosAnswer, trail: string): Terminal | undefined => {
    const status = answerStatus(a);
    if (status !== 'confirmed' && status !== 'failed') return undefined;
    const code = isObject(a.json) && typeof a.json.failureCode === 'string' ? a.json.failureCode : undefined;
    return { status, ...(code ? { failureCode: code } : {}), trail };
  };
  const okFirst = [200, 202, 409, 422].includes(first.status);
  if (!okFirst) return `the forward answered ${describe(first)}`;
  const done = terminal(first, `${first.status} ${answerStatus(first)}`);
  if (done) return done;
  if (first.status !== 202 || answerStatus(first) !== 'pending') return `the forward answered ${describe(first)}`;
  const deadline = Date.now() + TERMINAL_WAIT_MS;
  let polls = 0;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    polls++;
    const a = await statusOf(ctx, orderId, paymentId);
    if (a.status !== 200) return `202 pending, then the status endpoint answered ${describe(a)}`;
    const t = terminal(a, `202 pending, ${answerStatus(a)} after ${polls} polls`);
    if (t) return t;
  }
  return `still pending ${TERMINAL_WAIT_MS / 1000} s after the forward`;
}

async function readOrder(ctx: CheckContext, orderId: string): Promise<Json | string> {
  const a = await getOrder(ctx, orderId);
  return a.status === 200 && isObject(a.json) ? a.json : `GET /orders/${orderId} answered ${describe(a)}`;
}

/** The order as the unfiltered list shows it (not GET by id, which closed-readable judges). */
async function listedOrder(ctx: CheckContext, orderId: string): Promise<Json | undefined> {
  return arrayOf(await listOrders(ctx))?.find((o) => o.id === orderId);
}

function paymentBody(ctx: CheckContext, order: Json, label: string, type: 'full' | 'partial', amount: D.Dec): PaymentBody {
  const nonNegative = amount.units < 0n ? D.ZERO : amount;
  return {
    paymentId: `pos-check-${ctx.runId}-${label}`,
    type,
    amount: D.toNumber(nonNegative),
    tip: 0,
    currency: typeof order.currency === 'string' ? order.currency : 'EUR',
    paymentMethod: 'card',
  };
}

/** Payment replays must answer the payment's current state; never apply it again. */
async function replayConfirmed(ctx: CheckContext, orderId: string, body: PaymentBody): Promise<string | undefined> {
  const again = await forward(ctx, orderId, body);
  if (again.status !== 200 || answerStatus(again) !== 'confirmed') {
    return `replaying confirmed payment ${body.paymentId} answered ${describe(again)} (expected 200 confirmed, its current state)`;
  }
  return undefined;
}

function countInPayments(order: Json, paymentId: string): number | undefined {
  if (!Array.isArray(order.payments)) return undefined;
  return order.payments.filter((p) => isObject(p) && p.paymentId === paymentId).length;
}

export const paymentForward: RuleDef = {
  id: 'payment-forward',
  title: 'A forwarded full payment reaches confirmed and closes the order',
  async run(ctx) {
    if (!ctx.payments) return skip('run with --payments');
    // A priced order when a known sku is given; else the plain order of create-order-shape (amount 0).
    let target = ctx.orders.a;
    if (ctx.sku && ctx.tables.length > 0) {
      const { answer, created } = await createOrder(ctx, { ...baseOrderBody(ctx, 'f', [ctx.tables[0]]), items: [{ sku: ctx.sku, quantity: 1 }] });
      if (!created) return fail(`POST /orders with sku ${ctx.sku} answered ${describe(answer)}`);
      target = created;
    }
    if (!target) return skip('no order was created (create-order-shape)');
    const order = await readOrder(ctx, target.id);
    if (typeof order === 'string') return fail(order);
    const body = paymentBody(ctx, order, 'full', 'full', orderBalance(order));
    const result = await untilTerminal(ctx, target.id, body.paymentId, await forward(ctx, target.id, body));
    if (typeof result === 'string') return fail(`full payment ${body.paymentId} of ${body.amount}: ${result}`);
    if (result.status !== 'confirmed') return fail(`full payment ${body.paymentId} of ${body.amount} on a fresh open order: ${result.trail} ${result.failureCode ?? ''}`.trim());
    ctx.fullPayment = { orderId: target.id, paymentId: body.paymentId };
    const after = await listedOrder(ctx, target.id);
    if (after?.status !== 'closed') return fail(`payment ${result.trail}, but order ${target.id} lists as ${JSON.stringify(after?.status)}, not closed`);
    ctx.known.set(target.id, 'closed');
    return pass(`full payment of ${body.amount}: ${result.trail}; order ${target.id} closed`);
  },
};

/** Partial P1 (over half the balance), replayed; the order must stay open; then the rest, full. */
async function partialReplay(ctx: CheckContext, orderId: string, order: Json, balance: D.Dec): Promise<Outcome> {
  const first = paymentBody(ctx, order, 'p1', 'partial', D.halfUp(balance));
  const t1 = await untilTerminal(ctx, orderId, first.paymentId, await forward(ctx, orderId, first));
  if (typeof t1 === 'string' || t1.status !== 'confirmed') {
    return fail(`partial ${first.paymentId} of ${first.amount} (balance ${D.format(balance)}) was not confirmed: ${typeof t1 === 'string' ? t1 : `${t1.trail} ${t1.failureCode ?? ''}`}`);
  }
  const replay = await replayConfirmed(ctx, orderId, first);
  if (replay) return fail(replay);
  const mid = await readOrder(ctx, orderId);
  if (typeof mid === 'string') return fail(mid);
  if (mid.status !== 'open') {
    return fail(`after partial ${first.amount} of ${D.format(balance)} and its replay, order ${orderId} is ${JSON.stringify(mid.status)}: the replay was counted again`);
  }
  const seen = countInPayments(mid, first.paymentId);
  if (seen !== undefined && seen !== 1) return fail(`order ${orderId} lists payment ${first.paymentId} ${seen} times`);

  const rest = paymentBody(ctx, order, 'p2', 'full', D.sub(balance, D.halfUp(balance)));
  const t2 = await untilTerminal(ctx, orderId, rest.paymentId, await forward(ctx, orderId, rest));
  if (typeof t2 === 'string' || t2.status !== 'confirmed') {
    return fail(`closing payment ${rest.paymentId} of ${rest.amount}: ${typeof t2 === 'string' ? t2 : `${t2.trail} ${t2.failureCode ?? ''}`}`);
  }
  const replay2 = await replayConfirmed(ctx, orderId, rest);
  if (replay2) return fail(replay2);
  ctx.known.set(orderId, 'closed');
  return pass(`partial ${first.amount} of ${D.format(balance)} replayed: counted once (order stayed open${seen === 1 ? ', listed once' : ''}); full payment of the rest replayed: answered confirmed`);
}

/** Without a priced order: a full payment replayed must answer confirmed, not be tried again on the closed order. */
async function fullReplay(ctx: CheckContext): Promise<Outcome> {
  if (ctx.tables.length === 0) return skip('no table to open an order on (tables-shape)');
  const { answer, created } = await createOrder(ctx, baseOrderBody(ctx, 'd', [ctx.tables[0]]));
  if (!created) return fail(`POST /orders answered ${describe(answer)}`);
  const order = await readOrder(ctx, created.id);
  if (typeof order === 'string') return fail(order);
  const body = paymentBody(ctx, order, 'd-full', 'full', orderBalance(order));
  const t = await untilTerminal(ctx, created.id, body.paymentId, await forward(ctx, created.id, body));
  if (typeof t === 'string' || t.status !== 'confirmed') return fail(`full payment ${body.paymentId}: ${typeof t === 'string' ? t : `${t.trail} ${t.failureCode ?? ''}`}`);
  const replay = await replayConfirmed(ctx, created.id, body);
  if (replay) return fail(replay);
  ctx.known.set(created.id, 'closed');
  const after = await listedOrder(ctx, created.id);
  const seen = after ? countInPayments(after, body.paymentId) : undefined;
  if (seen !== undefined && seen !== 1) return fail(`order ${created.id} lists payment ${body.paymentId} ${seen} times`);
  return pass(`full payment replayed: answered confirmed (its current state). Partial replay not tested: pass --sku KNOWN_SKU`);
}

export const paymentIdempotent: RuleDef = {
  id: 'payment-idempotent',
  title: 'The same paymentId sent again is not applied twice',
  async run(ctx) {
    if (!ctx.payments) return skip('run with --payments');
    const c = ctx.orders.c;
    if (c) {
      const order = await readOrder(ctx, c.id);
      if (typeof order === 'string') return fail(order);
      const balance = orderBalance(order);
      // Two smallest units at least, so half of it is a real partial payment.
      if (order.status === 'open' && balance.units >= 2n) return partialReplay(ctx, c.id, order, balance);
    }
    return fullReplay(ctx);
  },
};

export const paymentStatus: RuleDef = {
  id: 'payment-status',
  title: 'GET …/payments/{paymentId} answers {status, failureCode?}; an unknown paymentId is 404',
  async run(ctx) {
    if (!ctx.payments) return skip('run with --payments');
    const paid = ctx.fullPayment;
    if (!paid) return skip('no payment was confirmed (payment-forward)');
    const known = await statusOf(ctx, paid.orderId, paid.paymentId);
    const body = isObject(known.json) ? known.json : undefined;
    const problems: string[] = [];
    if (known.status !== 200 || !body) problems.push(`status of ${paid.paymentId} answered ${describe(known)}`);
    else {
      if (body.status !== 'confirmed') problems.push(`status of confirmed payment ${paid.paymentId} is ${JSON.stringify(body.status)}`);
      if (body.failureCode !== undefined && body.failureCode !== null) problems.push(`failureCode ${JSON.stringify(body.failureCode)} on a confirmed payment`);
    }
    const unknown = await statusOf(ctx, paid.orderId, `pos-check-${ctx.runId}-never-sent`);
    if (unknown.status !== 404) problems.push(`an unknown paymentId answered ${describe(unknown)}, expected 404`);
    if (problems.length > 0) return fail(problems.join('; '));
    return pass(`${known.status} ${known.text}; unknown paymentId → 404`);
  },
};
