// The kit's HTTP client for a vendor's POS: HTTPS only, every answer kept raw (status, text, parsed
// JSON when it parses) because judging the answer is the rules' job, not the client's.

import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';

export interface PosAnswer {
  status: number;
  text: string;
  /** Parsed JSON body; undefined when the body is empty or not JSON. */
  json: unknown;
}

export type AuthMode = 'key' | 'none' | 'wrong';

export interface PosHttpOptions {
  baseUrl: string;
  apiKey: string;
  /** Extra PEM certificate(s) to trust. */
  ca?: string;
  /** Skip certificate verification (self-signed vendor test servers). */
  insecure?: boolean;
  /** PEM files trusted when they exist; default the one `pos-sim` writes (rms-check passes rms-sim's). */
  localCertFiles?: string[];
}

/**
 * Certificate `tableside pos-sim` writes to its data directory; trusted so that the documented
 * `pos-sim` + `pos-check` run works without flags. It is a localhost-only, non-CA certificate, so
 * trusting it cannot vouch for any other host.
 */
export function localSimulatorCertFile(): string {
  return resolve(process.env.TABLESIDE_DATA ?? '.tableside', 'pos-sim', 'cert.pem');
}

/**
 * The sandbox's certificate (`sandbox.json` → `caFile`, in $TABLESIDE_DATA or ./.tableside) when the
 * kit is pointed at one of that sandbox's servers (its POS simulator, its reference RMS, the service):
 * `npm start` then `pos-check`/`rms-check` with the URLs sandbox.json names work without flags. Only
 * for those origins, and the certificate is the sandbox's own localhost-only, non-CA one.
 */
export function sandboxCertFiles(baseUrl: string): string[] {
  const file = resolve(process.env.TABLESIDE_DATA ?? '.tableside', 'sandbox.json');
  try {
    if (!existsSync(file)) return [];
    const sandbox = JSON.parse(readFileSync(file, 'utf8')) as { caFile?: string; baseUrl?: string; rmsBaseUrl?: string; posSimulator?: { baseUrl?: string } | null };
    const origins = [sandbox.baseUrl, sandbox.rmsBaseUrl, sandbox.posSimulator?.baseUrl].filter((u): u is string => !!u).map((u) => new URL(u).origin);
    return sandbox.caFile && origins.includes(new URL(baseUrl).origin) ? [sandbox.caFile] : [];
  } catch {
    return [];
  }
}

/** PEM text of NODE_EXTRA_CA_CERTS, read here too so a value set after Node started also counts. */
function extraCaFromEnv(): string[] {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  return file && existsSync(file) ? [readFileSync(file, 'utf8')] : [];
}

export class PosHttp {
  private readonly agent: Agent;
  private readonly base: string;

  constructor(private readonly opts: PosHttpOptions) {
    const url = new URL(opts.baseUrl);
    if (url.protocol !== 'https:') throw new Error(`base URL must be https:// (spec 1: HTTPS only), got ${opts.baseUrl}`);
    this.base = opts.baseUrl.replace(/\/+$/, '');
    const simCerts = [...(opts.localCertFiles ?? [localSimulatorCertFile()]), ...sandboxCertFiles(opts.baseUrl)].filter((f) => existsSync(f));
    const extra = [
      ...(opts.ca ? [opts.ca] : []),
      ...extraCaFromEnv(),
      ...simCerts.map((f) => readFileSync(f, 'utf8')),
    ];
    this.agent = new Agent({
      connect: {
        timeout: 5_000,
        ...(opts.insecure ? { rejectUnauthorized: false } : {}),
        // Setting `ca` replaces Node's default list, so the bundled roots are passed along.
        ...(extra.length > 0 ? { ca: [...rootCertificates, ...extra] } : {}),
      },
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
  }

  async call(method: 'GET' | 'POST' | 'PUT', path: string, opts: { body?: unknown; auth?: AuthMode; headers?: Record<string, string> } = {}): Promise<PosAnswer> {
    const auth = opts.auth ?? 'key';
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (auth === 'key') headers.authorization = `Bearer ${this.opts.apiKey}`;
    if (auth === 'wrong') headers.authorization = `Bearer pos-check-wrong-${this.opts.apiKey.length}-key`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await request(`${this.base}${path}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      dispatcher: this.agent,
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, text, json };
  }

  get(path: string, auth?: AuthMode): Promise<PosAnswer> {
    return this.call('GET', path, { auth });
  }

  post(path: string, body: unknown): Promise<PosAnswer> {
    return this.call('POST', path, { body });
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** A short description of an answer for a rule's detail, e.g. `200 [{"id":"1",…` (body clipped). */
export function describe(a: PosAnswer): string {
  const body = a.text.length > 120 ? `${a.text.slice(0, 120)}…` : a.text;
  return `${a.status}${body ? ` ${body}` : ''}`;
}
