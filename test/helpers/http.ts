import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request, type Dispatcher } from 'undici';
import { inject } from 'vitest';
import type { TlsMaterial } from '../../src/lib/tls.ts';
import { checkerForService, enforce, type ReceivedResponse } from './contract.ts';

// The test certificate (generated once per run) and an HTTPS client that trusts it.

let material: TlsMaterial | null = null;

export function testTls(): TlsMaterial {
  const dir = inject('tlsDir');
  material ??= { key: readFileSync(join(dir, 'tls.key'), 'utf8'), cert: readFileSync(join(dir, 'tls.crt'), 'utf8') };
  return material;
}

export function testCertFile(): string {
  return join(inject('tlsDir'), 'tls.crt');
}

export interface HttpResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  body: T;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** A JSON body (objects are serialized); a string is sent as is. */
  body?: unknown;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  query?: Record<string, string | number | boolean | undefined>;
  /**
   * false: the response is not checked against the OpenAPI document (test/helpers/contract.ts).
   * Only for a test that deliberately sends something outside HTTP semantics.
   */
  contract?: boolean;
}

export class HttpClient {
  readonly dispatcher: Dispatcher;

  constructor(
    readonly baseUrl: string,
    ca: string = testTls().cert,
  ) {
    this.dispatcher = new Agent({ connect: { ca }, keepAliveTimeout: 1000 });
  }

  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse<T>> {
    const url = new URL(path, this.baseUrl);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    const res = await request(url, { method: method as Dispatcher.HttpMethod, headers, body, dispatcher: this.dispatcher });
    const text = await res.body.text();
    let parsed: unknown = text;
    if ((res.headers['content-type'] ?? '').toString().includes('json') && text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) flat[k] = Array.isArray(v) ? v.join(', ') : String(v);
    if (opts.contract !== false) await this.checkContract({ method, path: url.pathname, status: res.statusCode, headers: flat, text, json: parsed }, url);
    return { status: res.statusCode, headers: flat, body: parsed as T, text };
  }

  /**
   * Every response of the service under test is checked against the document it serves (fetched
   * once per service). Only a Tableside service stamps every response with x-request-id, so the
   * simulators and receivers this client also talks to are never asked for a document.
   */
  private async checkContract(received: ReceivedResponse, url: URL): Promise<void> {
    if (received.headers['x-request-id'] === undefined) {
      enforce({ checked: false, reason: 'not the service under test' }, received);
      return;
    }
    const checker = await checkerForService(url.origin, async (docUrl) => {
      // A service behind a TLS-terminating proxy (TRUST_PROXY) serves only requests the proxy marks https.
      const res = await request(docUrl, { method: 'GET', headers: { 'x-forwarded-proto': 'https' }, dispatcher: this.dispatcher });
      return { status: res.statusCode, text: await res.body.text() };
    });
    enforce(checker ? checker.check(received) : { checked: false, reason: 'the server serves no OpenAPI document' }, received);
  }

  get = <T = any>(path: string, opts?: RequestOptions) => this.request<T>('GET', path, opts);
  post = <T = any>(path: string, opts?: RequestOptions) => this.request<T>('POST', path, opts);
  put = <T = any>(path: string, opts?: RequestOptions) => this.request<T>('PUT', path, opts);
  delete = <T = any>(path: string, opts?: RequestOptions) => this.request<T>('DELETE', path, opts);

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
