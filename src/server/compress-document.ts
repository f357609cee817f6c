import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

// The OpenAPI document is large (about 860 KB of JSON) and the same for every request, so /docs sat
// on a spinner while it downloaded (issue 30). /openapi.json and Swagger UI's /docs/json are sent
// compressed (brotli or gzip, as the client accepts), each encoding made once per document
// version, not per request. Every other answer is left alone: API responses are small.

const DOCUMENT_PATHS = new Set(['/openapi.json', '/docs/json']);

type Encoding = 'br' | 'gzip';

/** The best encoding the client accepts (q=0 refuses one), or null. */
export function acceptedEncoding(header: string | undefined): Encoding | null {
  const accepted = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name) accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const ok = (e: string) => (accepted.get(e) ?? accepted.get('*') ?? 0) > 0;
  return ok('br') ? 'br' : ok('gzip') ? 'gzip' : null;
}

export function compressDocument(app: FastifyInstance): void {
  // The last document seen and its encodings: it changes only with a release (or a test's app).
  let last: { hash: string; encoded: Map<Encoding, Buffer> } | null = null;
  app.addHook('onSend', async (request, reply, payload) => {
    if (!DOCUMENT_PATHS.has(request.url.split('?')[0]!) || typeof payload !== 'string' || reply.statusCode !== 200) return payload;
    reply.header('vary', 'accept-encoding');
    const encoding = acceptedEncoding(request.headers['accept-encoding']);
    if (!encoding) return payload;
    const hash = createHash('sha256').update(payload).digest('hex');
    if (last?.hash !== hash) last = { hash, encoded: new Map() };
    let body = last.encoded.get(encoding);
    if (!body) {
      body = encoding === 'br'
        ? brotliCompressSync(payload, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(payload) } })
        : gzipSync(payload, { level: 9 });
      last.encoded.set(encoding, body);
    }
    reply.header('content-encoding', encoding);
    return body;
  });
}
