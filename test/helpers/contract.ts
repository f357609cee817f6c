import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';

// The response contract (issue 17): every response a test receives from the service is checked
// against the OpenAPI document the service serves, with a generic validator (Ajv + ajv-formats,
// nothing of ours), as a partner's contract-testing tool would check it:
//   - the operation (method + path template) documents the status (exact, `4XX`, or `default`);
//   - the body validates against the schema of that status and content type;
//   - every API header of API_HEADERS the response carries is declared on it, every header the
//     document requires is present, and a declared header's value validates against its schema.
// The service's own format names (iso-country, …) are kept in the document as documentation only:
// they are registered as "ignored" here, so only standard formats, patterns and enums carry meaning.
// Ajv's 2020-12 class, not the draft-07 default: an OpenAPI 3.1 schema is JSON Schema 2020-12, and
// keywords such as dependentRequired (the latitude/longitude pair) mean nothing to draft-07.
// Responses of requests that are not operations of the document (unknown paths, methods not
// offered, /docs, /metrics, the onboarding page) are skipped.
//
// `CONTRACT_REPORT=<file>` records violations (JSONL) instead of failing the test.

/** Non-standard headers the service sends (src/: platform, errors, oauth, content venues, pat payments, rate limits). */
export const API_HEADERS = [
  'x-request-id',
  'retry-after',
  'www-authenticate',
  'x-idempotent-replay',
  'x-venue-created',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
] as const;

export type ViolationKind = 'status' | 'content-type' | 'body' | 'header-undeclared' | 'header-missing' | 'header-value';

export interface Violation {
  kind: ViolationKind;
  problem: string;
}

/** What the checker needs of a received response. */
export interface ReceivedResponse {
  method: string;
  /** The request's path (no query), as sent. */
  path: string;
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** The JSON-parsed body when the caller already parsed it (saves a parse). */
  json?: unknown;
}

export type ContractOutcome =
  | { checked: true; operationId: string; method: string; template: string; status: number; violations: Violation[] }
  | { checked: false; reason: string };

// ajv-formats is CommonJS with a default export; under NodeNext its callable is `.default`.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const DOC_ID = 'https://contract.invalid/openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query'];

type Json = any;

interface Operation {
  operationId: string;
  method: string;
  template: string;
  pointer: string;
  responses: Record<string, Json>;
}

interface Route {
  template: string;
  /** One entry per segment: a literal, or null for a `{param}`. */
  segments: Array<string | null>;
  literals: number;
  operations: Map<string, Operation>;
}

interface CompiledMedia {
  mediaType: string;
  /** null: no schema (any body). */
  validate: ValidateFunction | null;
}

interface CompiledHeader {
  name: string;
  required: boolean;
  types: Set<string>;
  validate: ValidateFunction | null;
}

interface CompiledResponse {
  statusKey: string;
  media: CompiledMedia[];
  headers: Map<string, CompiledHeader>;
}

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (part: string) => part.replace(/~1/g, '/').replace(/~0/g, '~');

/** A checker for one document: routes indexed once, validators compiled on first use and kept. */
export class ContractChecker {
  private readonly ajv: Ajv2020;
  private readonly routesBySegments = new Map<number, Route[]>();
  private readonly compiled = new Map<string, CompiledResponse | null>();

  constructor(readonly doc: Json) {
    if (typeof doc?.openapi !== 'string' || !doc.openapi.startsWith('3.') || typeof doc.paths !== 'object') {
      throw new Error('contract: not an OpenAPI 3 document');
    }
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, validateSchema: false, formats: ignoredFormats(doc) });
    addFormats(this.ajv);
    this.ajv.addSchema(doc, DOC_ID);
    for (const [template, item] of Object.entries<Json>(doc.paths)) {
      const segments = template.split('/').slice(1).map((s) => (/^\{[^}]+\}$/.test(s) ? null : s));
      const route: Route = { template, segments, literals: segments.filter((s) => s !== null).length, operations: new Map() };
      for (const method of METHODS) {
        const op = item?.[method];
        if (op && typeof op === 'object') {
          route.operations.set(method.toUpperCase(), {
            operationId: op.operationId ?? `${method.toUpperCase()} ${template}`,
            method: method.toUpperCase(),
            template,
            pointer: `#/paths/${escapePointer(template)}/${method}`,
            responses: op.responses ?? {},
          });
        }
      }
      const list = this.routesBySegments.get(segments.length) ?? [];
      list.push(route);
      this.routesBySegments.set(segments.length, list);
    }
    // Concrete paths before templated ones (OpenAPI: `/v1/x/mine` matches before `/v1/x/{id}`).
    for (const list of this.routesBySegments.values()) list.sort((a, b) => b.literals - a.literals);
  }

  /** The operation a request reached, or null when the document has none for it. */
  operationOf(method: string, path: string): Operation | null {
    const segments = path.split('?')[0]!.split('/').slice(1);
    for (const route of this.routesBySegments.get(segments.length) ?? []) {
      if (route.segments.every((s, i) => (s === null ? segments[i] !== '' : s === segments[i]))) {
        return route.operations.get(method.toUpperCase()) ?? null;
      }
    }
    return null;
  }

  check(res: ReceivedResponse): ContractOutcome {
    const op = this.operationOf(res.method, res.path);
    if (!op) return { checked: false, reason: `${res.method.toUpperCase()} ${res.path.split('?')[0]} is not an operation of the document` };
    const base = { checked: true as const, operationId: op.operationId, method: op.method, template: op.template, status: res.status };
    const statusKey = documentedStatus(op.responses, res.status);
    if (!statusKey) {
      return { ...base, violations: [{ kind: 'status', problem: `status ${res.status} is not documented (documented: ${Object.keys(op.responses).join(', ')})` }] };
    }
    const compiled = this.compile(op, statusKey);
    if (!compiled) return { ...base, violations: [{ kind: 'status', problem: `the response ${statusKey} cannot be resolved` }] };
    return { ...base, violations: [...this.checkBody(compiled, res), ...this.checkHeaders(compiled, res)] };
  }

  private checkBody(compiled: CompiledResponse, res: ReceivedResponse): Violation[] {
    const contentType = res.headers['content-type'];
    const hasBody = res.text.length > 0;
    if (!hasBody) {
      // A declared media type whose schema accepts nothing empty is a body the service did not send.
      if (compiled.media.length === 0 || res.status === 204 || res.method.toUpperCase() === 'HEAD') return [];
      return [{ kind: 'body', problem: `the body is empty; the document declares ${compiled.media.map((m) => m.mediaType).join(', ')}` }];
    }
    if (compiled.media.length === 0) {
      return [{ kind: 'content-type', problem: `a ${contentType ?? 'untyped'} body is sent; the document declares no content for ${compiled.statusKey}` }];
    }
    if (!contentType) return [{ kind: 'content-type', problem: 'a body is sent without a Content-Type' }];
    const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
    const media = matchMedia(compiled.media, mediaType);
    if (!media) {
      return [{ kind: 'content-type', problem: `content type ${mediaType} is not declared (declared: ${compiled.media.map((m) => m.mediaType).join(', ')})` }];
    }
    if (!media.validate || !isJson(mediaType)) return [];
    let body = res.json;
    if (body === undefined || typeof body === 'string') {
      try {
        body = JSON.parse(res.text);
      } catch {
        return [{ kind: 'body', problem: `the ${mediaType} body is not JSON` }];
      }
    }
    if (media.validate(body)) return [];
    return [{ kind: 'body', problem: errorsText(media.validate.errors, 'body') }];
  }

  private checkHeaders(compiled: CompiledResponse, res: ReceivedResponse): Violation[] {
    const out: Violation[] = [];
    for (const name of API_HEADERS) {
      if (res.headers[name] !== undefined && !compiled.headers.has(name)) {
        out.push({ kind: 'header-undeclared', problem: `header ${name} is sent but not declared on ${compiled.statusKey}` });
      }
    }
    for (const header of compiled.headers.values()) {
      const value = res.headers[header.name];
      if (value === undefined) {
        if (header.required) out.push({ kind: 'header-missing', problem: `required header ${header.name} is missing` });
        continue;
      }
      if (header.validate && !header.validate(coerceHeader(value, header.types))) {
        out.push({ kind: 'header-value', problem: `header ${header.name}: ${JSON.stringify(value)}: ${errorsText(header.validate.errors, header.name)}` });
      }
    }
    return out;
  }

  private compile(op: Operation, statusKey: string): CompiledResponse | null {
    const key = `${op.method} ${op.template} ${statusKey}`;
    if (this.compiled.has(key)) return this.compiled.get(key)!;
    const found = this.deref(op.responses[statusKey], `${op.pointer}/responses/${escapePointer(statusKey)}`);
    let result: CompiledResponse | null = null;
    if (found) {
      const { value: response, pointer } = found;
      const media: CompiledMedia[] = Object.entries<Json>(response.content ?? {}).map(([mediaType, m]) => ({
        mediaType: mediaType.toLowerCase(),
        validate: m?.schema !== undefined ? this.ajv.compile({ $ref: `${DOC_ID}${pointer}/content/${escapePointer(mediaType)}/schema` }) : null,
      }));
      const headers = new Map<string, CompiledHeader>();
      for (const [name, raw] of Object.entries<Json>(response.headers ?? {})) {
        const header = this.deref(raw, `${pointer}/headers/${escapePointer(name)}`);
        if (!header) continue;
        const lower = name.toLowerCase();
        // OpenAPI: a Content-Type response header definition is ignored.
        if (lower === 'content-type') continue;
        const schema = header.value.schema;
        headers.set(lower, {
          name: lower,
          required: header.value.required === true,
          types: schema === undefined ? new Set() : this.typesOf(schema),
          validate: schema === undefined ? null : this.ajv.compile({ $ref: `${DOC_ID}${header.pointer}/schema` }),
        });
      }
      result = { statusKey, media, headers };
    }
    this.compiled.set(key, result);
    return result;
  }

  /** Follows `$ref`s to local objects (responses and headers may be references to components). */
  private deref(value: Json, pointer: string, depth = 0): { value: Json; pointer: string } | null {
    if (value === undefined || depth > 16) return null;
    if (value && typeof value === 'object' && typeof value.$ref === 'string' && value.$ref.startsWith('#/')) {
      return this.deref(this.at(value.$ref), value.$ref, depth + 1);
    }
    return { value, pointer: pointer.startsWith('#') ? pointer : `#${pointer}` };
  }

  private at(ref: string): Json {
    let node: Json = this.doc;
    for (const part of ref.slice(2).split('/').map(unescapePointer)) node = node?.[part];
    return node;
  }

  /** The JSON types a header's schema admits (to read "120" as the integer a schema asks for). */
  private typesOf(schema: Json, depth = 0): Set<string> {
    const out = new Set<string>();
    if (!schema || typeof schema !== 'object' || depth > 16) return out;
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/')) return this.typesOf(this.at(schema.$ref), depth + 1);
    for (const t of [schema.type].flat()) if (typeof t === 'string') out.add(t);
    for (const key of ['anyOf', 'oneOf', 'allOf']) for (const s of schema[key] ?? []) for (const t of this.typesOf(s, depth + 1)) out.add(t);
    return out;
  }
}

/** The document's own format names that ajv-formats does not define: accepted as "any string". */
function ignoredFormats(doc: Json): Record<string, true> {
  const names = new Set<string>();
  const walk = (node: Json) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      if (typeof node.format === 'string') names.add(node.format);
      for (const v of Object.values(node)) walk(v);
    }
  };
  walk(doc);
  const probe = new Ajv2020({ strict: false });
  addFormats(probe);
  const out: Record<string, true> = {};
  for (const name of names) if (!probe.formats[name]) out[name] = true;
  return out;
}

function documentedStatus(responses: Record<string, Json>, status: number): string | null {
  const exact = String(status);
  if (exact in responses) return exact;
  const range = `${Math.floor(status / 100)}XX`;
  for (const key of Object.keys(responses)) if (key.toUpperCase() === range) return key;
  return 'default' in responses ? 'default' : null;
}

function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function matchMedia(media: CompiledMedia[], mediaType: string): CompiledMedia | null {
  const [type] = mediaType.split('/');
  return (
    media.find((m) => m.mediaType === mediaType) ??
    media.find((m) => m.mediaType === `${type}/*`) ??
    media.find((m) => m.mediaType === '*/*') ??
    null
  );
}

function coerceHeader(value: string, types: Set<string>): unknown {
  if ((types.has('integer') || types.has('number')) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (types.has('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function errorsText(errors: ErrorObject[] | null | undefined, dataVar: string): string {
  const list = (errors ?? []).slice(0, 10).map((e) => {
    const params = e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : '';
    return `${dataVar}${e.instancePath} ${e.message}${params}`;
  });
  const more = (errors?.length ?? 0) > 10 ? `; … ${errors!.length - 10} more` : '';
  return list.join('; ') + more;
}

// ----- one checker per document, one document per running service -----

const checkersByHash = new Map<string, ContractChecker>();

/** The checker of a document (documents with the same content share one: validators compile once). */
export function checkerFor(doc: Json, text = JSON.stringify(doc)): ContractChecker {
  const hash = createHash('sha1').update(text).digest('hex');
  let checker = checkersByHash.get(hash);
  if (!checker) {
    checker = new ContractChecker(doc);
    checkersByHash.set(hash, checker);
  }
  return checker;
}

const checkersByBaseUrl = new Map<string, Promise<ContractChecker | null>>();

/**
 * The checker for the service at `baseUrl`, its document fetched once from `/openapi.json` with
 * `fetchText`; null when it has none (not the service under test). A failed fetch (the service is
 * gone) or a passing refusal (503 while it shuts down) is not remembered: the next response asks again.
 */
export function checkerForService(baseUrl: string, fetchText: (url: URL) => Promise<{ status: number; text: string }>): Promise<ContractChecker | null> {
  const origin = new URL(baseUrl).origin;
  let pending = checkersByBaseUrl.get(origin);
  if (!pending) {
    pending = (async () => {
      const res = await fetchText(new URL('/openapi.json', origin));
      if (res.status >= 500 || res.status === 429) throw new Error(`/openapi.json answered ${res.status}`);
      if (res.status !== 200) return null;
      let doc: Json;
      try {
        doc = JSON.parse(res.text);
      } catch {
        return null;
      }
      if (typeof doc?.openapi !== 'string' || typeof doc.paths !== 'object') return null;
      return checkerFor(doc, res.text);
    })();
    pending.catch(() => checkersByBaseUrl.delete(origin));
    checkersByBaseUrl.set(origin, pending);
  }
  return pending.catch(() => null);
}

/** Forgets which document each origin served (test/setup-file.ts: the next file's ports are new services). */
export function forgetServices(): void {
  checkersByBaseUrl.clear();
}

// ----- what happens to an outcome: counted, observed, reported or thrown -----

export const contractStats = { checked: 0, skipped: 0, violations: 0 };

type Listener = (outcome: ContractOutcome, res: ReceivedResponse) => void;
const listeners = new Set<Listener>();

/** Calls `listener` with every outcome until the returned function is called. */
export function observeContract(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

/** The message a test fails with: operation, status, the problems, the body cut to ~500 characters. */
export function violationMessage(outcome: Extract<ContractOutcome, { checked: true }>, res: ReceivedResponse): string {
  const body = res.text.length > 500 ? `${res.text.slice(0, 500)}… (${res.text.length} characters)` : res.text;
  return (
    `response contract: ${outcome.method} ${res.path.split('?')[0]} (${outcome.operationId}, ${outcome.template}) answered ${res.status}, ` +
    `which the OpenAPI document does not describe:\n` +
    outcome.violations.map((v) => `  - [${v.kind}] ${v.problem}`).join('\n') +
    `\n  body: ${body || '(empty)'}`
  );
}

/**
 * Counts the outcome, tells the observers, and for a violation either appends it to
 * CONTRACT_REPORT (one JSON line per problem) or throws a ContractViolation.
 */
export function enforce(outcome: ContractOutcome, res: ReceivedResponse): void {
  if (outcome.checked) contractStats.checked++;
  else contractStats.skipped++;
  for (const listener of listeners) listener(outcome, res);
  if (!outcome.checked || outcome.violations.length === 0) return;
  contractStats.violations++;
  const report = process.env.CONTRACT_REPORT;
  if (report) {
    const file = resolvePath(report);
    const lines = outcome.violations.map((v) =>
      JSON.stringify({ operationId: outcome.operationId, method: outcome.method, path: outcome.template, status: res.status, kind: v.kind, problem: v.problem, test: currentTestName() }),
    );
    appendFileSync(file, lines.join('\n') + '\n');
    return;
  }
  throw new ContractViolation(violationMessage(outcome, res));
}

function currentTestName(): string {
  const state = expect.getState();
  return `${(state.testPath ?? '').replace(/^.*\/test\//, 'test/')} > ${state.currentTestName ?? '(setup)'}`;
}
