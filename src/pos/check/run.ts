// Runs the conformance rules in order against one POS venue and collects the report.

import { randomBytes } from 'node:crypto';
import type { CheckContext, Outcome, RuleDef, RuleStatus } from './context.ts';
import { PosHttp } from './http.ts';
import { authRequired, createOrderShape, mergedTables, orderShape, tablesShape } from './rules.basic.ts';
import { checkTotal, closedReadable, itemsAdded, statusFilter, unknownSku, windowFilter } from './rules.orders.ts';
import { cleanup } from './rules.cleanup.ts';
import { paymentForward, paymentIdempotent, paymentStatus } from './rules.payments.ts';

export interface PosCheckOptions {
  baseUrl: string;
  apiKey: string;
  /** The POS's own venue (location) id. */
  venue: string;
  /** Also check the payment extension (DESIGN 6.2). */
  payments?: boolean;
  /** A sku configured for the venue: confirms items support and sharpens the unknown-sku rule. */
  sku?: string;
  /** Output format for printPosCheckReport / posCheckMain; runPosCheck itself prints nothing. */
  json?: boolean;
  /** Extra PEM certificate to trust (in addition to Node's CAs and NODE_EXTRA_CA_CERTS). */
  ca?: string;
  /** Skip TLS certificate verification. */
  insecure?: boolean;
}

export interface RuleResult { id: string; title: string; status: RuleStatus; detail: string }
export interface PosCheckReport { ok: boolean; rules: RuleResult[] }

/**
 * Run order matters: orders are created before the filters are read, and payments close orders
 * before status-filter and closed-readable look for closed ones. The report lists rules in this order.
 */
export const RULES: readonly RuleDef[] = [
  authRequired,
  tablesShape,
  createOrderShape,
  orderShape,
  windowFilter,
  mergedTables,
  unknownSku,
  itemsAdded,
  checkTotal,
  paymentForward,
  paymentIdempotent,
  paymentStatus,
  statusFilter,
  closedReadable,
  cleanup,
];

export async function runPosCheck(opts: PosCheckOptions): Promise<PosCheckReport> {
  const http = new PosHttp({ baseUrl: opts.baseUrl, apiKey: opts.apiKey, ca: opts.ca, insecure: opts.insecure });
  const ctx: CheckContext = {
    http,
    venue: opts.venue,
    runId: randomBytes(4).toString('hex'),
    sku: opts.sku,
    payments: opts.payments ?? false,
    tables: [],
    orders: {},
    known: new Map(),
  };
  let rules: RuleResult[];
  try {
    rules = await runRules(RULES, ctx);
  } finally {
    await http.close();
  }
  return { ok: rules.every((r) => r.status !== 'fail'), rules };
}

/** OpenSSL's names for a certificate the kit could not verify (self-signed, unknown issuer, wrong host, expired). */
const CERTIFICATE_ERROR = /SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|CERT_HAS_EXPIRED|ERR_TLS_CERT_ALTNAME|certificate/i;
/** What to pass, said where the failure is read (issue 30: every check failed with no hint). */
const UNTRUSTED_HINT = ' (the server\'s certificate is not trusted: pass --ca <its PEM file>, for the sandbox --ca .tableside/tls.crt; or --insecure to skip verification)';

/**
 * Runs rules in order and collects what each saw. A refused connection, a TLS error or a timeout
 * is what the kit saw: the rule fails with it (shared with rms-check).
 */
export async function runRules<C>(rules: ReadonlyArray<{ id: string; title: string; run(ctx: C): Promise<Outcome> }>, ctx: C): Promise<RuleResult[]> {
  const results: RuleResult[] = [];
  for (const rule of rules) {
    try {
      const outcome = await rule.run(ctx);
      results.push({ id: rule.id, title: rule.title, ...outcome });
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
      const why = [e.code, e.message, e.cause?.code ?? e.cause?.message].filter(Boolean).join(': ');
      results.push({ id: rule.id, title: rule.title, status: 'fail', detail: `request failed: ${why}${CERTIFICATE_ERROR.test(why) ? UNTRUSTED_HINT : ''}` });
    }
  }
  return results;
}
