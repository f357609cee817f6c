import { createServer } from 'node:net';
import { errors, request } from 'undici';
import { describe, expect, test } from 'vitest';
import { Readable } from 'node:stream';
import { callDeadline, connectorOnFirstUse, readWithin, rejectOnAbort, transportFailure } from '../../src/lib/outbound-http.ts';

// The transport half of the POS and RMS clients and the webhook sender: the whole-call limit race,
// and what an error of undici (or of the call's own signal) means.

describe('rejectOnAbort', () => {
  test('rejects with the reason of a signal that aborts later, or has aborted already', async () => {
    const controller = new AbortController();
    const pending = rejectOnAbort(controller.signal);
    const reason = new Error('limit');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await expect(rejectOnAbort(AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});

describe('callDeadline', () => {
  test("its signal ends an undici request and a body's dump when the limit passes, as a timeout; done() stops it", async () => {
    // Answers /head at once with headers and never the body; /none never answers.
    const sockets = new Set<import('node:net').Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.once('data', (chunk) => {
        if (chunk.toString().startsWith('GET /head')) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nab');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const stalled = callDeadline(100);
      const err = await Promise.race([request(`${origin}/none`, { signal: stalled.signal }), rejectOnAbort(stalled.signal)]).catch((e: unknown) => e);
      expect(transportFailure(err)).toEqual({ kind: 'timeout', connecting: false });
      expect(stalled.signal.aborted).toBe(true);

      const body = callDeadline(100);
      const res = await request(`${origin}/head`, { signal: body.signal });
      const dumped = await res.body.dump({ limit: 1024, signal: body.signal }).catch((e: unknown) => e);
      expect((dumped as Error).name).toBe('TimeoutError');
      expect(transportFailure(dumped)).toEqual({ kind: 'timeout', connecting: false });

      const stopped = callDeadline(50);
      stopped.done();
      await new Promise((r) => setTimeout(r, 150));
      expect(stopped.signal.aborted).toBe(false);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('transportFailure', () => {
  test.each([
    ['the headers limit (UND_ERR_HEADERS_TIMEOUT)', new errors.HeadersTimeoutError()],
    ['the body limit (UND_ERR_BODY_TIMEOUT)', new errors.BodyTimeoutError()],
    ["the call's own signal timing out", new DOMException('The operation was aborted due to timeout', 'TimeoutError')],
    ['an aborted request (UND_ERR_ABORTED)', new errors.RequestAbortedError()],
  ])('%s is a timeout of the answer', (_what, err) => {
    expect(transportFailure(err)).toEqual({ kind: 'timeout', connecting: false });
  });

  test('the connect limit (UND_ERR_CONNECT_TIMEOUT) is a timeout while connecting', () => {
    expect(transportFailure(new errors.ConnectTimeoutError())).toEqual({ kind: 'timeout', connecting: true });
  });

  test('a socket closed by the peer (UND_ERR_SOCKET) is unreachable, with its code and message', () => {
    expect(transportFailure(new errors.SocketError('other side closed'))).toEqual({
      kind: 'unreachable', code: 'UND_ERR_SOCKET', reason: 'UND_ERR_SOCKET: other side closed',
    });
  });

  test("an error wrapping its cause is told by the cause's code and message", () => {
    const cause = Object.assign(new Error('getaddrinfo ENOTFOUND pos.invalid'), { code: 'ENOTFOUND' });
    expect(transportFailure(new TypeError('fetch failed', { cause }))).toEqual({
      kind: 'unreachable', code: 'ENOTFOUND', reason: 'ENOTFOUND: getaddrinfo ENOTFOUND pos.invalid',
    });
  });

  test('an error with neither code nor cause is unreachable, told by its message', () => {
    expect(transportFailure(new Error('refused address'))).toEqual({ kind: 'unreachable', code: undefined, reason: 'refused address' });
  });

  test('a refused connection, as undici really throws it, is unreachable with ECONNREFUSED', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const err = await request(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    const failure = transportFailure(err);
    expect(failure).toMatchObject({ kind: 'unreachable', code: 'ECONNREFUSED' });
    expect(failure.kind === 'unreachable' && failure.reason).toMatch(/^ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:/);
  });
});

describe('[BKG-45] readWithin', () => {
  /** A body of `chunks` chunks of `size` bytes, counting how many were produced. */
  function body(chunks: number, size: number) {
    const made = { count: 0 };
    const stream = new Readable({
      highWaterMark: size,
      read() {
        if (made.count === chunks) return this.push(null);
        made.count += 1;
        this.push(Buffer.alloc(size, 0x61));
      },
    });
    return { stream, made };
  }

  test('an answer within the cap is read whole, as UTF-8 text (exactly the cap included)', async () => {
    const { stream } = body(4, 256);
    expect(await readWithin({ headers: {}, body: stream }, 1024)).toBe('a'.repeat(1024));
    expect(await readWithin({ headers: { 'content-length': '2' }, body: Readable.from([Buffer.from('é')]) }, 2)).toBe('é');
  });

  test('a Content-Length over the cap is refused before a byte is read, and the body destroyed', async () => {
    const { stream, made } = body(1000, 1024);
    expect(await readWithin({ headers: { 'content-length': String(1000 * 1024) }, body: stream }, 4096)).toBeNull();
    expect(made.count).toBe(0);
    expect(stream.destroyed).toBe(true);
  });

  test('without a Content-Length (or with a lying one) the bytes are counted, and reading stops at the cap', async () => {
    for (const headers of [{}, { 'content-length': '10' }]) {
      const { stream, made } = body(1000, 1024);
      expect(await readWithin({ headers, body: stream }, 4096)).toBeNull();
      expect(made.count).toBeLessThan(10);
      expect(stream.destroyed).toBe(true);
    }
  });
});

describe('connectorOnFirstUse', () => {
  test('makes the connector at the first connection, once, and hands every connection to it', () => {
    let made = 0;
    const seen: string[] = [];
    const connect = connectorOnFirstUse<[string]>(() => {
      made++;
      return (host) => seen.push(host);
    });
    expect(made).toBe(0);
    connect('a');
    connect('b');
    expect(made).toBe(1);
    expect(seen).toEqual(['a', 'b']);
  });
});
