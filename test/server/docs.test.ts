import { existsSync, readdirSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// /docs is the API reference (Swagger UI over the served document) and every guide of docs/ is
// reachable from it: the document's description links each one, /docs/guides lists them, and each
// renders as a page (issue 17, item 5).

const GUIDES = readdirSync(new URL('../../docs/', import.meta.url)).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)).sort();

describe('the documentation pages', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('[DES-010] the document links every guide of docs/, and each guide is served as a page', async () => {
    expect(GUIDES.length).toBeGreaterThanOrEqual(9);
    const doc = (await app.http.get('/openapi.json')).body;
    for (const name of GUIDES) expect(doc.info.description).toContain(`](/docs/guides/${name})`);

    const index = await app.http.get('/docs/guides');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    for (const name of GUIDES) {
      expect(index.text).toContain(`href="/docs/guides/${name}"`);
      const page = await app.http.get(`/docs/guides/${name}`);
      expect(page.status, name).toBe(200);
      expect(page.text).toMatch(/<h1[^>]*>/);
      // Links between guides point at their pages, not at .md files.
      expect(page.text).not.toMatch(/href="[a-z0-9-]+\.md/);
    }
    expect((await app.http.get('/docs/guides/no-such-guide')).status).toBe(404);
    expect((await app.http.get('/docs/guides/..%2Fpackage')).status).toBe(404);
  });

  it('[DES-010] Swagger UI, built at the first /docs request: its assets and document answer with the service\'s headers; an unknown asset is answered in the service\'s envelope', async () => {
    const page = await app.http.get('/docs/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['x-request-id']).toBeTruthy();
    const asset = await app.http.get('/docs/static/swagger-ui-bundle.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(Number(asset.headers['content-length'])).toBeGreaterThan(100_000);
    const yaml = await app.http.get('/docs/yaml');
    expect(yaml.status).toBe(200);
    expect(yaml.text).toMatch(/^openapi: 3\.1\.0/m);
    const missing = await app.http.get('/docs/static/no-such-asset.js');
    // As when the plugin's routes were the service's own: the service's answer for a path only
    // other methods or routes serve, in its envelope (not Fastify's default body).
    expect(missing.status).toBe(403);
    expect(missing.body.error.message).toMatch(/not allowed/);
  });

  it('[DES-010] every link of every served guide and of the guide index answers 200 (issue 30: five relative links left docs/ and answered 404)', async () => {
    const pages = ['/docs/guides', ...GUIDES.map((name) => `/docs/guides/${name}`)];
    const checked = new Map<string, number>();
    const broken: string[] = [];
    for (const page of pages) {
      const html = (await app.http.get(page)).text;
      for (const [, href] of html.matchAll(/href="([^"]+)"/g)) {
        if (/^(https?:|mailto:)/.test(href!) || href!.startsWith('#')) continue; // outside links; anchors of the page itself
        const target = new URL(href!.replace(/&amp;/g, '&'), new URL(page, app.url));
        const key = target.pathname + target.search;
        if (!checked.has(key)) checked.set(key, (await app.http.get(key, { contract: false })).status);
        if (checked.get(key) !== 200) broken.push(`${page}: ${href} -> ${checked.get(key)}`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked.size).toBeGreaterThan(GUIDES.length);
  });

  it('[DES-010] the guide index shows titles as text: inline code rendered, never literal backticks', async () => {
    const index = (await app.http.get('/docs/guides')).text;
    expect(index).toContain('<code>/v1/pos</code>');
    expect(index).not.toContain('`');
  });

  it('[DES-010] /openapi.json and /docs/json are sent compressed to a client that accepts it, and decompress to the same document', async () => {
    const plain = await app.http.get('/openapi.json');
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const path of ['/openapi.json', '/docs/json']) {
      for (const [encoding, decode] of [['gzip', gunzipSync], ['br', brotliDecompressSync]] as const) {
        const res = await request(new URL(path, app.url), { dispatcher: app.http.dispatcher, headers: { 'accept-encoding': encoding } });
        const raw = Buffer.from(await res.body.arrayBuffer());
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-encoding'], `${path} ${encoding}`).toBe(encoding);
        expect(res.headers.vary).toContain('accept-encoding');
        // A fifth of the JSON or less.
        expect(raw.length * 5, `${path} ${encoding}`).toBeLessThan(plain.text.length);
        expect(JSON.parse(decode(raw).toString('utf8'))).toEqual(plain.body);
      }
    }
    const refused = await request(new URL('/openapi.json', app.url), { dispatcher: app.http.dispatcher, headers: { 'accept-encoding': 'gzip;q=0, br;q=0' } });
    expect(refused.headers['content-encoding']).toBeUndefined();
    await refused.body.text();
  });

  const CHROMIUM = '/usr/bin/chromium';
  const hasChromium = existsSync(CHROMIUM);
  it.skipIf(!hasChromium && process.env.CI !== 'true')('[DES-010] /docs renders the operations in a browser and a guide opens from it', async () => {
    if (!hasChromium) throw new Error(`The browser test needs Chromium at ${CHROMIUM} (apt-get install -y chromium).`);
    let browser: Browser | undefined;
    try {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
      await page.goto(`${app.url}/docs`);
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      expect(await page.locator('.opblock').count()).toBeGreaterThan(50);
      // Swagger UI renders the description's links (it opens them in a new tab: follow the href).
      const link = page.locator('a[href="/docs/guides/payments"]').first();
      expect(await link.count()).toBe(1);
      const guide = await page.goto(new URL((await link.getAttribute('href'))!, app.url).toString());
      expect(guide!.status()).toBe(200);
      expect(await page.locator('h1').first().textContent()).toMatch(/\S/);
    } finally {
      await browser?.close();
    }
  });
});
