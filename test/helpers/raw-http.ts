import { connect } from 'node:tls';
import { testTls } from './http.ts';

// Sends bytes no well-behaved HTTP client would (a NUL in a header, a broken request line) over
// TLS to the service and returns the raw answer: what a fuzzer or an attacker can send.

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function rawRequest(baseUrl: string, head: string, body = '', ca = testTls().cert): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), ca, servername: url.hostname === '127.0.0.1' ? undefined : url.hostname });
    const chunks: Buffer[] = [];
    socket.setTimeout(30_000, () => socket.destroy(new Error('raw request: no answer in 30 s')));
    socket.on('secureConnect', () => socket.end(Buffer.concat([Buffer.from(head.replace(/\r?\n/g, '\r\n') + '\r\n\r\n', 'latin1'), Buffer.from(body)])));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [rawHead, ...rest] = text.split('\r\n\r\n');
      const lines = rawHead.split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers, body: rest.join('\r\n\r\n') });
    });
  });
}
