import { request, type Dispatcher } from 'undici';

// A fuzzer over every operation of the service's live OpenAPI document (issue 15). It reads
// /openapi.json from the running service, so routes added later are covered with no change here,
// derives requests from each operation's parameters and body schema, mostly broken on purpose
// (wrong types, missing and extra fields, huge and NUL-bearing strings, odd numbers, bad
// percent-encodings in paths and queries, bad content types, big bodies), and checks every answer:
// no 5xx, the error envelope on every error, no stack trace or SQL text, the URL not echoed.
// Seeded: the same seed and count send the same requests, so a failure reproduces.

export interface FuzzCredentials {
  /** By path prefix, the credential sent most of the time (e.g. `/v1/rms` -> an API key). */
  byPrefix: Array<{ prefix: string; token: string }>;
  /** Sent when no prefix matches. */
  fallback?: string;
}

export interface FuzzOptions {
  baseUrl: string;
  dispatcher: Dispatcher;
  seed: number;
  count: number;
  credentials: FuzzCredentials;
  /** Real values for path parameters by name (venueId, orderId, …), so requests get past 404. */
  knownParams?: Record<string, string[]>;
  concurrency?: number;
}

export interface FuzzFailure {
  index: number;
  method: string;
  path: string;
  status: number;
  problem: string;
  body: string;
}

export interface FuzzReport {
  seed: number;
  sent: number;
  operations: number;
  byStatus: Record<number, number>;
  failures: FuzzFailure[];
}

interface Operation {
  method: string;
  path: string;
  params: Array<{ name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: Schema }>;
  body: Schema | null;
  bodyTypes: string[];
}

type Schema = Record<string, any>;

/** encodeURIComponent, except that a lone surrogate becomes its (invalid) UTF-8 bytes instead of a throw. */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '')) + '%ED%A0%80';
  }
}

/** mulberry32: small, fast, good enough to pick mutations reproducibly. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BAD_SEGMENTS = ['%zz', '%', '%E0%A4%A', '%C0%AF', '%00', 'a%00b', '%ff%fe', '..', '%2e%2e', '%2F', ' ', '%20', '\u00e9', '%F0%9F%98%80'];
const ODD_NUMBERS = [-1, 0, -0, 1e308, -1e308, 2 ** 53 + 1, 1.0000000001, 0.1 + 0.2, 123456789.123456, 1e-9, 99999999999999999999];
const ODD_STRINGS = ['', ' ', '\u0000', 'a\u0000b', 'x'.repeat(5000), '\ud800', '🙂'.repeat(50), '<script>', "' OR 1=1 --", '%00', '../../etc/passwd', '1e999', 'NaN', 'null', 'true', '2026-02-30T25:61:00Z', '-1'];

export async function loadOperations(baseUrl: string, dispatcher: Dispatcher): Promise<{ ops: Operation[]; doc: Schema }> {
  const res = await request(new URL('/openapi.json', baseUrl), { dispatcher });
  const doc = (await res.body.json()) as Schema;
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Schema) => resolve(doc, p));
      const content = resolve(doc, op.requestBody ?? {})?.content ?? {};
      const bodyTypes = Object.keys(content);
      const bodySchema = content['application/json']?.schema ?? (bodyTypes[0] ? content[bodyTypes[0]].schema : null);
      ops.push({
        method: method.toUpperCase(),
        path,
        params: params.map((p: Schema) => ({ name: p.name, in: p.in, required: !!p.required, schema: resolve(doc, p.schema ?? {}) })),
        body: bodySchema ? resolve(doc, bodySchema) : null,
        bodyTypes,
      });
    }
  }
  return { ops, doc };
}

function resolve(doc: Schema, s: Schema): Schema {
  let out = s;
  for (let i = 0; out && typeof out.$ref === 'string' && i < 10; i++) {
    const name = out.$ref.replace(/^#\/components\/schemas\//, '').replace(/#$/, '');
    out = doc.components?.schemas?.[name] ?? {};
  }
  return out;
}

/** A plausible value for a schema (what a careful client would send), to mutate from. */
function plausible(doc: Schema, raw: Schema, rnd: () => number, depth = 0): unknown {
  const s = resolve(doc, raw);
  if (depth > 6) return null;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[Math.floor(rnd() * s.enum.length)];
  const variants = s.anyOf ?? s.oneOf;
  if (Array.isArray(variants) && variants.length) return plausible(doc, variants[Math.floor(rnd() * variants.length)], rnd, depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries<Schema>(s.properties ?? {})) {
        if ((s.required ?? []).includes(k) || rnd() < 0.6) out[k] = plausible(doc, v, rnd, depth + 1);
      }
      return out;
    }
    case 'array':
      return Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => plausible(doc, s.items ?? {}, rnd, depth + 1));
    case 'integer':
      return Math.max(s.minimum ?? 0, Math.min(s.maximum ?? 10, 1 + Math.floor(rnd() * 5)));
    case 'number':
      return Math.max(s.minimum ?? 0, Math.min(s.maximum ?? 100, Math.round(rnd() * 5000) / 100 + 0.01));
    case 'boolean':
      return rnd() < 0.5;
    case 'string':
      return plausibleString(s, rnd);
    default:
      return 'x';
  }
}

function plausibleString(s: Schema, rnd: () => number): string {
  switch (s.format) {
    case 'uuid':
      return '0190a0a0-0000-7000-8000-000000000000';
    case 'date-time':
      return '2026-03-01T19:30:00+01:00';
    case 'date':
      return '2026-03-01';
    case 'email':
      return 'guest@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com/x';
    case 'iso-country':
      return 'ES';
    case 'iso-currency':
      return 'EUR';
    case 'iso-language':
      return 'es';
    case 'iana-timezone':
      return 'Europe/Madrid';
    case 'iso-date-or-date-time':
      return '2026-03-01';
  }
  const len = Math.max(s.minLength ?? 1, Math.min(s.maxLength ?? 12, 3 + Math.floor(rnd() * 8)));
  return 'f'.repeat(len);
}

/** A broken version of a value: the heart of the fuzzer. */
function mutateValue(value: unknown, rnd: () => number): unknown {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  switch (Math.floor(rnd() * 9)) {
    case 0:
      return pick(ODD_STRINGS);
    case 1:
      return pick(ODD_NUMBERS);
    case 2:
      return null;
    case 3:
      return typeof value === 'string' ? value + '\u0000' : [value];
    case 4:
      return { nested: { deeper: value } };
    case 5:
      return typeof value === 'number' ? String(value) : typeof value === 'string' ? value.length : !value;
    case 6:
      // Long, but never past ~1 MB: a key mutated twice would otherwise grow past V8's longest string.
      return typeof value === 'string' ? value.repeat(Math.max(1, Math.min(300, Math.floor(1_000_000 / Math.max(1, value.length))))) : 'y'.repeat(10_000);
    case 7:
      return [];
    default:
      return value;
  }
}

function mutateBody(body: unknown, rnd: () => number): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return rnd() < 0.5 ? mutateValue(body, rnd) : body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  const keys = Object.keys(out);
  const edits = 1 + Math.floor(rnd() * 3);
  for (let i = 0; i < edits; i++) {
    const r = rnd();
    if (keys.length && r < 0.25) delete out[keys[Math.floor(rnd() * keys.length)]];
    else if (r < 0.4) out[`extra_${Math.floor(rnd() * 1000)}${rnd() < 0.2 ? '\u0000' : ''}`] = mutateValue('extra', rnd);
    else if (keys.length) {
      const k = keys[Math.floor(rnd() * keys.length)];
      out[k] = rnd() < 0.3 && out[k] && typeof out[k] === 'object' ? mutateBody(out[k], rnd) : mutateValue(out[k], rnd);
    }
  }
  return out;
}

function pathValue(name: string, schema: Schema, known: Record<string, string[]>, rnd: () => number): string {
  const r = rnd();
  const real = known[name];
  if (real?.length && r < 0.45) return enc(real[Math.floor(rnd() * real.length)]);
  if (r < 0.6) return enc(String(plausible({}, schema, rnd)));
  if (r < 0.8) return BAD_SEGMENTS[Math.floor(rnd() * BAD_SEGMENTS.length)];
  if (r < 0.9) return enc(ODD_STRINGS[Math.floor(rnd() * ODD_STRINGS.length)]).slice(0, 6000);
  return 'z'.repeat(100 + Math.floor(rnd() * 3000));
}

interface Built {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

function build(op: Operation, doc: Schema, opts: FuzzOptions, rnd: () => number): Built {
  const known = opts.knownParams ?? {};
  let path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const p = op.params.find((x) => x.in === 'path' && x.name === name);
    return pathValue(name, p?.schema ?? { type: 'string' }, known, rnd);
  });
  const query: string[] = [];
  for (const p of op.params.filter((x) => x.in === 'query')) {
    const r = rnd();
    if (r < 0.3 && !p.required) continue;
    const value = r < 0.6 ? plausible(doc, p.schema, rnd) : mutateValue(plausible(doc, p.schema, rnd), rnd);
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    query.push(`${enc(p.name)}=${rnd() < 0.1 ? BAD_SEGMENTS[Math.floor(rnd() * BAD_SEGMENTS.length)] : enc(String(text)).slice(0, 8000)}`);
    if (rnd() < 0.05) query.push(`${enc(p.name)}=again`);
  }
  if (rnd() < 0.1) query.push(`unknown_${Math.floor(rnd() * 100)}=${rnd() < 0.5 ? '%zz' : '1'}`);
  if (query.length) path += `?${query.join('&')}`;

  const headers: Record<string, string> = {};
  const cred = opts.credentials.byPrefix.find((c) => op.path.startsWith(c.prefix))?.token ?? opts.credentials.fallback;
  const a = rnd();
  if (cred && a < 0.85) headers.authorization = `Bearer ${cred}`;
  else if (a < 0.93) headers.authorization = rnd() < 0.5 ? 'Bearer tat_garbage' : 'Basic Zm9vOmJhcg==';

  let body: string | Buffer | undefined;
  if (op.method !== 'GET' && op.method !== 'DELETE') {
    const r = rnd();
    const json = op.bodyTypes.includes('application/json') || op.bodyTypes.length === 0;
    headers['content-type'] = json ? 'application/json' : op.bodyTypes[0];
    const value = op.body ? plausible(doc, op.body, rnd) : {};
    if (r < 0.55) body = JSON.stringify(mutateBody(value, rnd));
    else if (r < 0.7) body = JSON.stringify(value);
    else if (r < 0.76) body = JSON.stringify(value).slice(0, -1);
    else if (r < 0.8) body = '';
    else if (r < 0.84) body = JSON.stringify(mutateValue(value, rnd));
    else if (r < 0.88) {
      headers['content-type'] = ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=latin9', 'application/x-www-form-urlencoded', '*/*', 'application/json, text/html'][Math.floor(rnd() * 7)];
      body = r < 0.86 ? JSON.stringify(value) : 'a=1&b=%zz&c=%00';
    } else if (r < 0.9) body = Buffer.alloc(1024 * 1024 + 10, 'a');
    else if (r < 0.93) body = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    else if (r < 0.96) body = `{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},${JSON.stringify(value ?? {}).slice(1)}`;
    else body = Buffer.from([0xff, 0xfe, 0x00, 0x7b]);
  }
  // Now and then a method the operation does not have (403 on a known path, by spec 7.1).
  const odd = rnd();
  const method = odd < 0.03 ? ['OPTIONS', 'HEAD', 'PATCH', 'DELETE', 'PUT', 'SEARCH'][Math.floor(rnd() * 6)] : op.method;
  return { method, path, headers, body: method === 'HEAD' ? undefined : body };
}

const LEAKS = /\bat [^\s()]+\.(?:ts|js|mjs):\d+|node_modules|\bSELECT\b.+\bFROM\b|\bINSERT INTO\b|\bUPDATE\b.+\bSET\b|syntax error at|violates .* constraint|duplicate key value|invalid input syntax/i;

/** Every error of every path has the envelope; the OAuth-style bodies of /oauth/token and the /v1/pat 401 aside. */
function envelopeProblem(path: string, status: number, text: string, contentType: string): string | null {
  if (status < 400) return null;
  if (!contentType.includes('json')) return `error without a JSON body (${contentType || 'no content-type'})`;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return 'error body is not JSON';
  }
  const oauthStyle = body && typeof body.error === 'string' && typeof body.error_description === 'string';
  if (path.startsWith('/oauth/') || (path.startsWith('/v1/pat') && status === 401)) return oauthStyle ? null : 'expected the OAuth-style error body';
  const e = body?.error;
  const ok = e && typeof e === 'object' && e.code === status && typeof e.message === 'string' && (e.details === null || typeof e.details === 'object');
  return ok ? null : 'no error envelope {error:{code,message,details}}';
}

export async function fuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const rnd = prng(opts.seed);
  const { ops, doc } = await loadOperations(opts.baseUrl, opts.dispatcher);
  // One pass over every operation first, then random ones: every operation is exercised even in a short run.
  const planned: Built[] = [];
  for (let i = 0; i < opts.count; i++) {
    const op = i < ops.length ? ops[i] : ops[Math.floor(rnd() * ops.length)];
    planned.push(build(op, doc, opts, rnd));
  }
  const report: FuzzReport = { seed: opts.seed, sent: 0, operations: ops.length, byStatus: {}, failures: [] };
  let next = 0;
  const worker = async () => {
    while (next < planned.length) {
      const index = next++;
      const r = planned[index];
      const fail = (status: number, problem: string, body: string) =>
        report.failures.push({ index, method: r.method, path: r.path.slice(0, 300), status, problem, body: body.slice(0, 500) });
      let status = 0;
      let text = '';
      let contentType = '';
      try {
        const res = await request(new URL(r.path, opts.baseUrl), {
          method: r.method as Dispatcher.HttpMethod,
          headers: r.headers,
          body: r.body,
          dispatcher: opts.dispatcher,
        });
        status = res.statusCode;
        text = await res.body.text();
        contentType = String(res.headers['content-type'] ?? '');
        if (!res.headers['x-request-id']) fail(status, 'no x-request-id header', text);
      } catch (err) {
        // undici refuses to send some of what we build (it validates paths); that is not the service's answer.
        if ((err as { code?: string }).code === 'UND_ERR_INVALID_ARG' || err instanceof TypeError) continue;
        fail(0, `request failed: ${(err as Error).message}`, '');
        continue;
      }
      report.sent++;
      report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
      if (status >= 500) fail(status, '5xx', text);
      // A HEAD answer has no body by definition (RFC 9110): only its status is checked.
      const envelope = r.method === 'HEAD' ? null : envelopeProblem(r.path, status, text, contentType);
      if (envelope) fail(status, envelope, text);
      if (LEAKS.test(text)) fail(status, 'stack trace or SQL text in the body', text);
      const pathOnly = r.path.split('?')[0];
      if (status >= 400 && pathOnly.length > 40 && text.includes(pathOnly)) fail(status, 'the body echoes the request URL', text);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 8 }, worker));
  report.failures.sort((a, b) => a.index - b.index);
  return report;
}
