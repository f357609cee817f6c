import { afterAll, beforeAll, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { rawRequest } from '../helpers/raw-http.ts';
let app: TestApp;
beforeAll(async () => { app = await startTestApp(); });
afterAll(async () => { await app?.close(); });
it('probe', async () => {
  const url = new URL(app.url);
  for (const method of ['QUERY', 'PROPFIND', 'LOCK', 'FOO', 'SEARCH', 'OPTIONS', 'TRACE', 'HEAD', 'CONNECT']) {
    for (const path of ['/v1/pat/venues', '/v1/rms/company', '/oauth/token', '/v3/HealthCheck', '/nope', '/healthz']) {
      for (const body of ['', '{}']) {
        const head = `${method} ${path} HTTP/1.1\nHost: ${url.host}\nConnection: close` + (body ? `\nContent-Type: application/json\nContent-Length: ${body.length}` : '');
        const r = await rawRequest(app.url, head, body);
        console.log(method, path, body ? 'body' : 'nobody', r.status, r.body.slice(0, 110));
      }
    }
  }
});
