// Rules on auth, tables, creating an order and reading it back (spec 2.6, 2.7, 4.6, 5.3).

import {
  arrayOf, baseOrderBody, createOrder, fail, getOrder, listOrders, pass, skip, venuePath,
  type CheckContext, type RuleDef,
} from './context.ts';
import { describe } from './http.ts';
import { isObject, orderProblems, sameJson, tableListProblems } from './shapes.ts';

const refused = (status: number) => status === 401 || status === 403;

export const authRequired: RuleDef = {
  id: 'auth-required',
  title: 'Requests without the API key, or with a wrong one, are refused',
  async run(ctx) {
    const probes = [
      { label: 'GET /tables without a key', answer: await ctx.http.get(`${venuePath(ctx)}/tables`, 'none') },
      { label: 'GET /tables with a wrong key', answer: await ctx.http.get(`${venuePath(ctx)}/tables`, 'wrong') },
      { label: 'GET /orders without a key', answer: await ctx.http.get(`${venuePath(ctx)}/orders`, 'none') },
      { label: 'GET /orders with a wrong key', answer: await ctx.http.get(`${venuePath(ctx)}/orders`, 'wrong') },
    ];
    const bad = probes.filter((p) => !refused(p.answer.status) || Array.isArray(p.answer.json));
    const seen = (p: (typeof probes)[number]) => `${p.answer.status}${Array.isArray(p.answer.json) ? ` with ${p.answer.json.length} records` : ''}`;
    if (bad.length > 0) return fail(bad.map((p) => `${p.label} answered ${seen(p)}`).join('; '));
    return pass(probes.map((p) => `${p.label} → ${p.answer.status}`).join('; '));
  },
};

export const tablesShape: RuleDef = {
  id: 'tables-shape',
  title: 'GET /tables answers an array of {id: string, name: string} with unique ids',
  async run(ctx) {
    const answer = await ctx.http.get(`${venuePath(ctx)}/tables`);
    if (answer.status !== 200) return fail(`GET /tables answered ${describe(answer)}`);
    const list = arrayOf(answer) ?? [];
    ctx.tables = list.map((t) => t.id).filter((id) => id !== undefined && id !== null).map(String);
    const problems = tableListProblems(answer.json);
    if (problems.length > 0) return fail(problems.slice(0, 5).join('; '));
    if (list.length === 0) return fail('the venue has no tables: configure some so orders can be opened on them');
    return pass(`${list.length} tables, e.g. ${JSON.stringify(list[0])}`);
  },
};

export const createOrderShape: RuleDef = {
  id: 'create-order-shape',
  title: 'POST /orders answers 2xx {id: string, checkNumber: string}',
  async run(ctx) {
    if (ctx.tables.length === 0) return skip('no table to open an order on (tables-shape)');
    const { answer, created } = await createOrder(ctx, baseOrderBody(ctx, 'a', [ctx.tables[0]]));
    if (created) ctx.orders.a = created;
    if (answer.status < 200 || answer.status >= 300) return fail(`POST /orders answered ${describe(answer)}`);
    const body = answer.json;
    if (!isObject(body)) return fail(`answer is not a JSON object: ${describe(answer)}`);
    const problems = [
      typeof body.id !== 'string' || body.id === '' ? `id should be a non-empty string, is ${JSON.stringify(body.id)}` : '',
      typeof body.checkNumber !== 'string' || body.checkNumber === '' ? `checkNumber should be a non-empty string, is ${JSON.stringify(body.checkNumber)}` : '',
    ].filter(Boolean);
    if (problems.length > 0) return fail(`${answer.status} ${answer.text}: ${problems.join('; ')}`);
    return pass(`${answer.status} ${answer.text}`);
  },
};

export const orderShape: RuleDef = {
  id: 'order-shape',
  title: 'The created order reads back with every field of spec 2.7, correctly typed, same as in the list',
  async run(ctx) {
    const a = ctx.orders.a;
    if (!a) return skip('no order was created (create-order-shape)');
    const one = await getOrder(ctx, a.id);
    if (one.status !== 200 || !isObject(one.json)) return fail(`GET /orders/${a.id} answered ${describe(one)}`);
    const order = one.json;
    const problems = orderProblems(order);
    if (order.id !== a.id) problems.push(`id is ${JSON.stringify(order.id)}, created as ${JSON.stringify(a.id)}`);
    if (order.status !== 'open') problems.push(`a new order should be open, is ${JSON.stringify(order.status)}`);
    if (JSON.stringify(order.tables) !== JSON.stringify([ctx.tables[0]])) problems.push(`tables ${JSON.stringify(order.tables)}, sent ${JSON.stringify([ctx.tables[0]])}`);
    if (order.partySize !== 2) problems.push(`partySize ${JSON.stringify(order.partySize)}, sent 2`);
    if (order.guestName !== 'pos-check a') problems.push(`guestName ${JSON.stringify(order.guestName)}, sent "pos-check a"`);
    const checks = Array.isArray(order.checks) ? order.checks.filter(isObject) : [];
    if (a.checkNumber !== undefined && !checks.some((c) => c.checkNumber === a.checkNumber)) {
      problems.push(`no check numbered ${a.checkNumber} (the create answer's checkNumber)`);
    }

    // POS-20: a list item has the same shape as the single read; every listed order must conform too.
    const list = await listOrders(ctx);
    const orders = arrayOf(list);
    if (list.status !== 200 || !orders) problems.push(`GET /orders answered ${describe(list)}`);
    else {
      const item = orders.find((o) => o.id === a.id);
      if (!item) problems.push(`order ${a.id} is missing from GET /orders`);
      else if (!sameJson(item, order)) problems.push(`GET /orders lists order ${a.id} differently from GET /orders/${a.id}`);
      for (const o of orders.slice(0, 50)) if (o.id !== a.id) problems.push(...orderProblems(o));
    }
    if (problems.length > 0) return fail(problems.slice(0, 6).join('; '));
    return pass(`order ${a.id}: all fields present and typed; ${Math.min(orders?.length ?? 0, 50)} listed orders conform`);
  },
};

export const mergedTables: RuleDef = {
  id: 'merged-tables',
  title: 'An order created on two tables reads back with both (merged tables)',
  async run(ctx) {
    if (ctx.tables.length < 2) return skip('the venue needs at least two tables');
    const sent = ctx.tables.slice(0, 2);
    const { answer, created } = await createOrder(ctx, { ...baseOrderBody(ctx, 'b', sent), partySize: 6 });
    if (!created) return fail(`POST /orders with tables ${JSON.stringify(sent)} answered ${describe(answer)}`);
    ctx.orders.b = created;
    const one = await getOrder(ctx, created.id);
    if (one.status !== 200 || !isObject(one.json)) return fail(`GET /orders/${created.id} answered ${describe(one)}`);
    const tables = one.json.tables;
    const got = Array.isArray(tables) ? tables.map(String).sort() : [];
    if (JSON.stringify(got) !== JSON.stringify([...sent].sort())) {
      return fail(`sent tables ${JSON.stringify(sent)}, order ${created.id} has ${JSON.stringify(tables)}`);
    }
    return pass(`order ${created.id} keeps tables ${JSON.stringify(tables)}`);
  },
};
