import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { TlsMaterial } from '../lib/tls.ts';

// HTTPS only (spec 1, DESIGN 5). The port speaks TLS; a client that speaks plain HTTP to it gets a
// readable 400 in the error envelope and the connection is closed. The request never reaches
// routing (DES-001: no redirect, since the credentials were already sent in clear).
//
// Behind a TLS-terminating proxy (TRUST_PROXY), plain connections are the proxy's: they go to the
// application, whose onRequest hook refuses any request whose X-Forwarded-Proto is not https.

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const PLAIN_HTTP_BODY = JSON.stringify({
  error: {
    code: 400,
    message: 'This service only accepts HTTPS. The request was sent over plain HTTP and was not processed.',
    details: null,
  },
});

function refusePlainHttp(req: http.IncomingMessage, res: http.ServerResponse): void {
  req.resume();
  res.writeHead(400, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(PLAIN_HTTP_BODY),
    'x-request-id': randomUUID(),
    connection: 'close',
  });
  res.end(PLAIN_HTTP_BODY);
}

export function createHttpsOnlyServer(tls: TlsMaterial, handler: Handler, opts: { trustProxy: boolean }): https.Server {
  const secure = https.createServer({ key: tls.key, cert: tls.cert }, handler);
  const plain = http.createServer(opts.trustProxy ? handler : refusePlainHttp);

  // Take over the TLS server's raw connections: peek at the first byte; a TLS record starts with
  // 0x16 (handshake), while HTTP starts with a printable method name.
  const tlsConnection = secure.listeners('connection')[0] as (socket: Socket) => void;
  secure.removeAllListeners('connection');
  const dispatch = (socket: Socket): void => {
    const first = socket.read(1) as Buffer | null;
    if (first === null) {
      socket.once('readable', () => dispatch(socket));
      return;
    }
    socket.unshift(first);
    socket.setTimeout(0);
    if (first[0] === 0x16) tlsConnection.call(secure, socket);
    else plain.emit('connection', socket);
  };
  secure.on('connection', (socket: Socket) => {
    socket.on('error', () => socket.destroy());
    // A client that connects and sends nothing is dropped, like the HTTP server's own timeouts do.
    socket.setTimeout(30_000, () => socket.destroy());
    dispatch(socket);
  });

  // Fastify closes idle keep-alive connections on shutdown; do the same for the plain side.
  const closeIdle = secure.closeIdleConnections.bind(secure);
  secure.closeIdleConnections = () => {
    closeIdle();
    plain.closeIdleConnections();
  };
  const closeAll = secure.closeAllConnections.bind(secure);
  secure.closeAllConnections = () => {
    closeAll();
    plain.closeAllConnections();
  };
  return secure;
}
