// The kit's last step: the orders it opened and did not close (every run without --payments opens
// some, with no items) would stay on the venue's tables, where the next bill read finds an order
// with nothing due. The POS contract has no way to close an order, so the kit uses the reference
// simulator's control API (void, what staff do at the till) when the server has one, and otherwise
// names the orders left open so the vendor closes them. Never a contract failure.

import { pass, skip, type CheckContext, type RuleDef } from './context.ts';
import { describe } from './http.ts';

const enc = encodeURIComponent;

export const cleanup: RuleDef = {
  id: 'cleanup',
  title: 'The orders the kit opened are closed again (the reference simulator: voided; another POS: listed to close at the till)',
  async run(ctx: CheckContext) {
    const open = [...ctx.known].filter(([, status]) => status === 'open').map(([id]) => id);
    if (open.length === 0) return pass(ctx.known.size === 0 ? 'the kit opened no order' : `all ${ctx.known.size} orders the kit opened are closed`);
    const left: string[] = [];
    for (const id of open) {
      const answer = await ctx.http.call('POST', `/_control/venues/${enc(ctx.venue)}/orders/${enc(id)}/void`, { body: {} });
      if (answer.status === 200) ctx.known.set(id, 'closed');
      else left.push(`${id} (void: ${describe(answer)})`);
    }
    if (left.length > 0) return skip(`left open on the venue, close them at the till: ${left.join('; ')}`);
    return pass(`voided the ${open.length} orders the kit left open, through the simulator's control API`);
  },
};
