// The POS conformance kit (`tableside pos-check`): runs every rule of the partner contract (spec
// 4.6) and, with `payments`, the payment extension against a vendor's server, and reports each
// rule as pass, fail or skip with what it saw. Independent of the rest of src/: undici, node and
// this folder only. It creates orders on the venue (and with `payments` pays them): use a test venue.

export { RULES, runPosCheck, runRules, type PosCheckOptions, type PosCheckReport, type RuleResult } from './run.ts';
export { formatPosCheckReport, formatReport, posCheckMain, runKitCli, type PosCheckCliOptions } from './printer.ts';
export type { RuleStatus } from './context.ts';
