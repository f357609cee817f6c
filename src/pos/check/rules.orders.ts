// Rules on items, totals and the order list filters (spec 2.7, 4.6; DESIGN 9 for from/until).

import {
  arrayOf, baseOrderBody, createOrder, fail, getOrder, listOrders, pass, skip, type RuleDef,
} from './context.ts';
import * as D from './decimal.ts';
import { describe } from './http.ts';
import { isObject, type Json } from './shapes.ts';

const checksOf = (order: Json): Json[] => (Array.isArray(order.checks) ? order.checks.filter(isObject) : []);
const itemsOf = (check: Json): Json[] => (Array.isArray(check.items) ? check.items.filter(isObject) : []);

export const windowFilter: RuleDef = {
  id: 'window-filter',
  title: 'from/until select orders by updatedAt, both bounds inclusive',
  async run(ctx) {
    const a = ctx.orders.a;
    if (!a) return skip('no order was created (create-order-shape)');
    const one = await getOrder(ctx, a.id);
    const updatedAt = isObject(one.json) ? one.json.updatedAt : undefined;
    const u = typeof updatedAt === 'string' ? Date.parse(updatedAt) : NaN;
    if (Number.isNaN(u)) return fail(`order ${a.id} has no readable updatedAt (${JSON.stringify(updatedAt)})`);
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: Array<{ query: Record<string, string>; expect: boolean; label: string }> = [
      { query: { from: iso(u - 1000), until: iso(u + 1000) }, expect: true, label: 'window of ±1 s around it' },
      { query: { from: iso(u), until: iso(u) }, expect: true, label: 'from = until = its updatedAt (inclusive)' },
      { query: { from: iso(u + 1000) }, expect: false, label: 'from 1 s after it' },
      { query: { until: iso(u - 1000) }, expect: false, label: 'until 1 s before it' },
    ];
    const problems: string[] = [];
    for (const c of cases) {
      const answer = await listOrders(ctx, c.query);
      const orders = arrayOf(answer);
      if (answer.status !== 200 || !orders) {
        problems.push(`${new URLSearchParams(c.query)} answered ${describe(answer)}`);
        continue;
      }
      const has = orders.some((o) => o.id === a.id);
      if (has !== c.expect) problems.push(`${c.label}: order ${a.id} (updatedAt ${updatedAt}) ${has ? 'included' : 'missing'}`);
      const from = c.query.from ? Date.parse(c.query.from) : -Infinity;
      const until = c.query.until ? Date.parse(c.query.until) : Infinity;
      const outside = orders.filter((o) => {
        const t = typeof o.updatedAt === 'string' ? Date.parse(o.updatedAt) : NaN;
        return !(t >= from && t <= until);
      });
      if (outside.length > 0) problems.push(`${c.label}: ${outside.length} listed orders are outside it (e.g. ${outside[0].id} updatedAt ${outside[0].updatedAt})`);
    }
    if (problems.length > 0) return fail(problems.join('; '));
    return pass(`order ${a.id} (updatedAt ${updatedAt}) found inside windows ending or starting at it, excluded from windows 1 s away`);
  },
};

export const unknownSku: RuleDef = {
  id: 'unknown-sku',
  title: 'An unknown sku is refused with 422 {error, unknownSkus} listing exactly the unknown ones',
  async run(ctx) {
    if (ctx.tables.length === 0) return skip('no table to open an order on (tables-shape)');
    const unknown = `pos-check-unknown-${ctx.runId}`;
    const items = [...(ctx.sku ? [{ sku: ctx.sku, quantity: 1 }] : []), { sku: unknown, quantity: 1 }];
    const { answer, created } = await createOrder(ctx, { ...baseOrderBody(ctx, 'u', [ctx.tables[0]]), items });
    if (answer.status === 422) {
      const body = isObject(answer.json) ? answer.json : {};
      if (typeof body.error !== 'string') return fail(`422 without a string error: ${describe(answer)}`);
      if (!Array.isArray(body.unknownSkus) || JSON.stringify(body.unknownSkus) !== JSON.stringify([unknown])) {
        return fail(`unknownSkus should be ${JSON.stringify([unknown])}${ctx.sku ? ` (not the known ${ctx.sku})` : ''}, got ${JSON.stringify(body.unknownSkus)}`);
      }
      return pass(`422 ${answer.text}`);
    }
    if (!created) return fail(`expected 422 (or, without items support, 2xx); got ${describe(answer)}`);
    // Accepted: that is conforming only for a POS that ignores items altogether (spec 4.6 rule 2).
    const one = await getOrder(ctx, created.id);
    const withItems = isObject(one.json) ? checksOf(one.json).some((c) => itemsOf(c).length > 0) : false;
    if (ctx.sku) return fail(`accepted an unknown sku with ${answer.status} (order ${created.id}${withItems ? ', created with the known item only' : ''}); --sku says items are supported`);
    if (withItems) return fail(`accepted an unknown sku with ${answer.status} and order ${created.id} has items`);
    return pass(`${answer.status}: items are not supported (accepted and ignored, spec 4.6 rule 2); pass --sku to test items`);
  },
};

export const itemsAdded: RuleDef = {
  id: 'items-added',
  title: 'Items with a known sku are added to the order (quantity kept)',
  async run(ctx) {
    if (!ctx.sku) return skip('pass --sku KNOWN_SKU to test items');
    if (ctx.tables.length === 0) return skip('no table to open an order on (tables-shape)');
    const { answer, created } = await createOrder(ctx, {
      ...baseOrderBody(ctx, 'c', [ctx.tables[0]]),
      items: [{ sku: ctx.sku, quantity: 2, notes: 'pos-check' }],
    });
    if (!created) return fail(`POST /orders with sku ${ctx.sku} × 2 answered ${describe(answer)}`);
    ctx.orders.c = created;
    const one = await getOrder(ctx, created.id);
    if (!isObject(one.json)) return fail(`GET /orders/${created.id} answered ${describe(one)}`);
    const items = checksOf(one.json).flatMap(itemsOf);
    const match = items.find((i) => i.quantity === 2 && (i.sku === undefined || i.sku === ctx.sku));
    if (!match) return fail(`order ${created.id} does not show sku ${ctx.sku} × 2; items: ${JSON.stringify(items).slice(0, 200)}`);
    return pass(`order ${created.id} shows ${JSON.stringify(match)}`);
  },
};

export const checkTotal: RuleDef = {
  id: 'check-total',
  title: "A check's totalAmount equals Σ price × quantity of its items, exactly",
  async run(ctx) {
    const answer = await listOrders(ctx);
    const orders = arrayOf(answer);
    if (answer.status !== 200 || !orders) return fail(`GET /orders answered ${describe(answer)}`);
    if (ctx.orders.c && !orders.some((o) => o.id === ctx.orders.c?.id)) {
      const one = await getOrder(ctx, ctx.orders.c.id);
      if (isObject(one.json)) orders.push(one.json);
    }
    let checked = 0;
    const problems: string[] = [];
    for (const order of orders) {
      for (const check of checksOf(order)) {
        const items = itemsOf(check);
        if (items.length === 0) continue;
        if (typeof check.totalAmount !== 'number' || items.some((i) => typeof i.price !== 'number' || !Number.isInteger(i.quantity))) {
          problems.push(`order ${order.id} check ${check.checkNumber}: totalAmount, price or quantity not numeric`);
          continue;
        }
        checked++;
        const expected = D.sum(items.map((i) => D.times(D.toDec(i.price as number), i.quantity as number)));
        if (!D.equal(expected, D.toDec(check.totalAmount))) {
          problems.push(`order ${order.id} check ${check.checkNumber}: totalAmount ${check.totalAmount}, items sum to ${D.format(expected)}`);
        }
      }
    }
    if (problems.length > 0) return fail(problems.slice(0, 5).join('; '));
    if (checked === 0) return skip('no check with items to verify (pass --sku, or have orders with items on the venue)');
    return pass(`${checked} checks with items: every totalAmount equals Σ price × quantity`);
  },
};

export const statusFilter: RuleDef = {
  id: 'status-filter',
  title: 'status=open lists only open orders, status=closed only closed, no status lists both',
  async run(ctx) {
    const problems: string[] = [];
    const lists: Record<string, Json[]> = {};
    for (const status of ['open', 'closed', '']) {
      const answer = await listOrders(ctx, status ? { status } : {});
      const orders = arrayOf(answer);
      if (answer.status !== 200 || !orders) {
        problems.push(`status=${status || '(none)'} answered ${describe(answer)}`);
        continue;
      }
      lists[status] = orders;
      const wrong = status ? orders.filter((o) => o.status !== status) : [];
      if (wrong.length > 0) problems.push(`status=${status} lists ${wrong.length} ${wrong[0].status} orders (e.g. ${wrong[0].id})`);
    }
    if (problems.length > 0) return fail(problems.join('; '));
    const has = (list: string, id: string) => lists[list].some((o) => o.id === id);
    for (const [id, status] of ctx.known) {
      if (!has(status, id)) problems.push(`${status} order ${id} missing from status=${status}`);
      if (!has('', id)) problems.push(`order ${id} missing from the unfiltered list`);
    }
    if (problems.length > 0) return fail(problems.slice(0, 5).join('; '));
    const all = lists[''];
    const open = all.filter((o) => o.status === 'open').length;
    const closed = all.filter((o) => o.status === 'closed').length;
    const note = closed === 0 ? ' (no closed order on the venue: run with --payments to close one)' : '';
    return pass(`open ${lists.open.length}, closed ${lists.closed.length}, unfiltered ${all.length} (${open} open + ${closed} closed)${note}`);
  },
};

export const closedReadable: RuleDef = {
  id: 'closed-readable',
  title: 'Closed orders are readable by id, in the same shape as in the list',
  async run(ctx) {
    const answer = await listOrders(ctx, { status: 'closed' });
    const listed = arrayOf(answer);
    if (answer.status !== 200 || !listed) return fail(`GET /orders?status=closed answered ${describe(answer)}`);
    // Only the closed ones: whether the filter works is status-filter's business. Orders the kit
    // closed itself are read too, even if the list left them out.
    const closed = listed.filter((o) => o.status === 'closed').slice(0, 20);
    const ownClosed = [...ctx.known].filter(([id, st]) => st === 'closed' && !closed.some((o) => o.id === id)).map(([id]) => id);
    if (closed.length === 0 && ownClosed.length === 0) return skip('the venue has no closed orders (run with --payments to close one)');
    const problems: string[] = [];
    const keys = (x: Json) => Object.keys(x).sort().join(',');
    for (const item of closed) {
      const one = await getOrder(ctx, String(item.id));
      if (one.status !== 200 || !isObject(one.json)) {
        problems.push(`closed order ${item.id}: GET by id answered ${describe(one)}`);
        continue;
      }
      const o = one.json;
      if (o.id !== item.id || o.status !== 'closed' || o.closedAt !== item.closedAt) {
        problems.push(`closed order ${item.id}: read back as id ${JSON.stringify(o.id)}, status ${JSON.stringify(o.status)}, closedAt ${JSON.stringify(o.closedAt)}`);
      }
      if (keys(o) !== keys(item)) problems.push(`closed order ${item.id}: fields differ from the list item (${keys(o)} vs ${keys(item)})`);
    }
    for (const id of ownClosed) {
      const one = await getOrder(ctx, id);
      if (one.status !== 200 || !isObject(one.json) || one.json.status !== 'closed') {
        problems.push(`order ${id}, closed by the kit's payment: GET by id answered ${describe(one)}`);
      }
    }
    if (problems.length > 0) return fail(problems.slice(0, 5).join('; '));
    return pass(`${closed.length + ownClosed.length} closed orders read back by id (e.g. ${closed[0]?.id ?? ownClosed[0]})`);
  },
};
