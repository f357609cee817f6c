import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestPartner } from '../helpers/app.ts';
import { describeEachStore } from '../helpers/db.ts';
import type { HttpResponse } from '../helpers/http.ts';
import { POS, startPatWorld, type PatWorld, type PosCode } from '../helpers/pat.ts';
import { freePort } from '../helpers/streams.ts';

// Onboarding a standalone venue (spec 3.5, 4.7; DESIGN 6.5): the link a restaurant opens, the form
// it posts its POS location id with, the POS tables call, the duplicate-connection refusal, table
// import and activation. Over HTTP first, then in a real headless Chromium with JavaScript off.

const PUBLIC_BASE_URL = 'https://pay.tableside.example';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TABLES = [
  { id: 'T1', name: 'Table 1' },
  { id: 'T2', name: 'Table 2' },
  { id: 'BAR', name: 'Bar' },
];

let w: PatWorld;
let locations = 0;


interface Pending {
  venueId: string;
  requestId: string;
  url: string;
  /** Path and query of the link, to call it on the test server. */
  path: string;
  name: string;
}

async function newLocation(tables = TABLES, world: PatWorld = w): Promise<string> {
  const id = `onb-${process.pid}-${++locations}`;
  await world.sim.control.createVenue({ id, name: `POS location ${locations}`, timezone: 'Europe/Madrid', currency: 'EUR', tables, menu: [{ sku: 'ESP', name: 'Espresso', price: 2.5 }] });
  return id;
}

async function createPending(opts: { name?: string; posType?: PosCode; partner?: TestPartner; world?: PatWorld } = {}): Promise<Pending> {
  const world = opts.world ?? w;
  const name = opts.name ?? `Venue ${locations}-${Math.random().toString(36).slice(2, 7)}`;
  const res = await world.app.http.post('/v1/pat/venues', {
    token: (opts.partner ?? world.partner).token,
    body: { name, address: '1 Calle Mayor', city: 'Madrid', postalCode: '28013', country: 'ES', timezone: 'Europe/Madrid', currency: 'EUR', posType: opts.posType ?? POS.immediate },
  });
  expect(res.status, res.text).toBe(200);
  const url = new URL(res.body.onboarding.url);
  return { venueId: res.body.id, requestId: res.body.onboarding.requestId, url: res.body.onboarding.url, path: `${url.pathname}${url.search}`, name };
}

const openPage = (path: string, headers: Record<string, string> = {}) => w.app.http.get(path, { headers });
const submit = (path: string, posVenueId: string) =>
  w.app.http.post(path, { body: new URLSearchParams({ posVenueId }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
const features = (venueId: string, token = w.partner.token) => w.app.http.get(`/v1/pat/venue/${venueId}/features`, { token });
const tables = (venueId: string, token = w.partner.token) => w.app.http.get(`/v1/pat/venue/${venueId}/tables`, { token });
const posCodeOf = async (venueId: string, token = w.partner.token) => {
  const res = await w.app.http.get('/v1/pat/venues', { token, query: { limit: 100 } });
  return res.body.venues.find((v: { id: string }) => v.id === venueId)?.posCode;
};
const tablesCalls = async (posVenueId: string) =>
  (await w.sim.control.requests(posVenueId)).filter((r) => r.method === 'GET' && r.path === `/venue/${posVenueId}/tables`);

/** The page's visible text, roughly: tags dropped, entities decoded, spaces collapsed. */
function textOf(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

function expectForm(res: HttpResponse) {
  expect(res.text).toMatch(/<form[^>]*method="post"/i);
  expect(res.text).toMatch(/<input[^>]*name="posVenueId"/);
}

function expectNoForm(res: HttpResponse) {
  expect(res.text).not.toMatch(/<form/i);
  expect(res.text).not.toContain('posVenueId');
}

describeEachStore('onboarding', (store) => {
  beforeAll(async () => {
    // A generous POS timeout: no test here is about timeouts, and the machine may be busy.
    w = await startPatWorld({ autoClose: false, store, env: { PUBLIC_BASE_URL, POS_TIMEOUT_MS: '10000' } });
  });

  afterAll(async () => {
    await w?.close();
  });

  describe('the onboarding link', () => {
    it('[DES-090] [PATV-12] onboarding.url is PUBLIC_BASE_URL/onboarding/{requestId}?t=<secret>', async () => {
      const a = await createPending();
      const b = await createPending();
      for (const p of [a, b]) {
        expect(p.requestId).toMatch(UUID);
        const url = new URL(p.url);
        expect(url.origin).toBe(PUBLIC_BASE_URL);
        expect(url.pathname).toBe(`/onboarding/${p.requestId}`);
        expect([...url.searchParams.keys()]).toEqual(['t']);
        expect(url.searchParams.get('t')!.length).toBeGreaterThanOrEqual(16);
        expect(p.url).toBe(`${PUBLIC_BASE_URL}/onboarding/${p.requestId}?t=${url.searchParams.get('t')}`);
      }
      // Each link has its own secret.
      expect(new URL(a.url).searchParams.get('t')).not.toBe(new URL(b.url).searchParams.get('t'));
    });

    it('[PATV-21] [DES-091] opens without credentials: an HTML page showing the venue name, the POS type and a form', async () => {
      const pending = await createPending({ name: 'Casa Lucía' });
      const res = await openPage(pending.path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      const text = textOf(res.text);
      expect(text).toContain('Casa Lucía');
      // The POS type's name, as GET /v1/pat/pos-types lists it.
      expect(text).toContain('Simulator (immediate)');
      expectForm(res);
      // The form posts to the same URL.
      const action = /<form[^>]*action="([^"]*)"/.exec(res.text)![1].replace(/&amp;/g, '&');
      expect(new URL(action, PUBLIC_BASE_URL).toString()).toBe(new URL(pending.path, PUBLIC_BASE_URL).toString());
      // Another POS type shows its own name.
      const deferred = await createPending({ posType: POS.deferred });
      expect(textOf((await openPage(deferred.path)).text)).toContain('Simulator (deferred)');
    });

    it('[DES-091] the venue name is shown as text, never as markup', async () => {
      const pending = await createPending({ name: 'Chez <b>Marie</b> & "Fils"' });
      const res = await openPage(pending.path);
      expect(res.text).not.toContain('<b>Marie</b>');
      expect(res.text).toContain('Chez &lt;b&gt;Marie&lt;/b&gt; &amp;');
      expect(textOf(res.text)).toContain('Chez <b>Marie</b> & "Fils"');
    });

    it('[DES-092] without the right t the page is not served', async () => {
      const pending = await createPending({ name: 'Secret Garden' });
      const other = await createPending();
      const t = new URL(pending.url).searchParams.get('t')!;
      const flipped = `${t.slice(0, -1)}${t.endsWith('A') ? 'B' : 'A'}`;
      const wrong = [
        `/onboarding/${pending.requestId}`,
        `/onboarding/${pending.requestId}?t=`,
        `/onboarding/${pending.requestId}?t=${flipped}`,
        `/onboarding/${pending.requestId}?t=${new URL(other.url).searchParams.get('t')}`,
        `/onboarding/${other.requestId}?t=${t}`,
        `/onboarding/not-a-request?t=${t}`,
      ];
      for (const path of wrong) {
        const res = await openPage(path);
        expect(res.status, path).toBeGreaterThanOrEqual(400);
        expect(res.text, path).not.toContain('Secret Garden');
        expectNoForm(res);
      }
      // A bearer token is no substitute for the secret.
      const withToken = await w.app.http.get(`/onboarding/${pending.requestId}`, { token: w.partner.token });
      expect(withToken.status).toBeGreaterThanOrEqual(400);
      expectNoForm(withToken);
      expect((await openPage(pending.path)).status).toBe(200);
    });

    it('[DES-092] without the right t the form is not accepted: the POS is not called and nothing is connected', async () => {
      const pending = await createPending();
      const location = await newLocation();
      const t = new URL(pending.url).searchParams.get('t')!;
      for (const path of [`/onboarding/${pending.requestId}`, `/onboarding/${pending.requestId}?t=${t}x`, `/onboarding/${pending.requestId}?t=${t.slice(1)}`]) {
        const res = await submit(path, location);
        expect(res.status, path).toBeGreaterThanOrEqual(400);
        expect(textOf(res.text)).not.toMatch(/connected/i);
      }
      expect(await tablesCalls(location)).toEqual([]);
      expect((await features(pending.venueId)).status).toBe(404);
      expect(await posCodeOf(pending.venueId)).toBeNull();
      // With the right secret the same location is accepted.
      expect((await submit(pending.path, location)).status).toBe(200);
      expect((await features(pending.venueId)).status).toBe(200);
    });
  });

  describe('connecting a POS location', () => {
    it('[DES-093] posting the form makes the service call the POS GET /venue/{posVenueId}/tables with the POS type’s key', async () => {
      const pending = await createPending();
      const location = await newLocation();
      expect(await tablesCalls(location)).toEqual([]);
      const res = await submit(pending.path, location);
      expect(res.status, res.text).toBe(200);
      const calls = await tablesCalls(location);
      expect(calls).toHaveLength(1);
      expect(calls[0].headers.authorization).toBe(`Bearer ${w.sim.apiKey}`);
      expect(calls[0].status).toBe(200);
    });

    it('[DES-094] [PATV-24] [PATV-20] [PATV-26] on success the tables are imported and features, tables and bill answer; posCode is set', async () => {
      const partner = await w.app.newPartner(['pat']);
      const pending = await createPending({ partner });
      const location = await newLocation();

      // Before: no POS connection.
      const before = await features(pending.venueId, partner.token);
      expect(before.status).toBe(404);
      expect(before.body.error.message).toMatch(/no POS connection found/i);
      expect((await tables(pending.venueId, partner.token)).status).toBe(404);
      expect(await posCodeOf(pending.venueId, partner.token)).toBeNull();
      const form = await openPage(pending.path);
      expectForm(form);

      const res = await submit(pending.path, location);
      expect(res.status).toBe(200);
      const text = textOf(res.text);
      expect(text).toMatch(/connected/i);
      expect(text).toContain('3 tables were imported');
      expectNoForm(res);

      const f = await features(pending.venueId, partner.token);
      expect(f.status).toBe(200);
      expect(f.body.posCode).toBe(POS.immediate);
      expect(await posCodeOf(pending.venueId, partner.token)).toBe(POS.immediate);
      const t = await tables(pending.venueId, partner.token);
      expect(t.status).toBe(200);
      expect(t.body.venueId).toBe(pending.venueId);
      expect(t.body.tables.map((x: { name: string }) => x.name).sort()).toEqual(['Bar', 'Table 1', 'Table 2']);
      for (const table of t.body.tables) expect(table.id).toMatch(UUID);

      // The bill answers for a table of the venue: 404 "no open order" until the POS has one, then 200.
      const t1 = t.body.tables.find((x: { name: string }) => x.name === 'Table 1').id;
      const noOrder = await w.app.http.get(`/v1/pat/venue/${pending.venueId}/table/${t1}/bill`, { token: partner.token });
      expect(noOrder.status).toBe(404);
      expect(noOrder.body.error.message).not.toMatch(/no POS connection/i);
      await w.sim.control.openOrder(location, { tables: ['T1'], checks: [{ items: [{ sku: 'ESP', quantity: 2 }] }] });
      const bill = await w.app.http.get(`/v1/pat/venue/${pending.venueId}/table/${t1}/bill`, { token: partner.token });
      expect(bill.status, bill.text).toBe(200);
      expect(bill.body).toMatchObject({ venueId: pending.venueId, tableId: t1, tableName: 'Table 1', status: 'open' });
      expect(bill.body.totals.total).toBe(5);

      // The link now says the venue is connected, and offers no form.
      const after = await openPage(pending.path);
      expect(after.status).toBe(200);
      expect(textOf(after.text)).toMatch(/connected/i);
      expectNoForm(after);
      // Posting again changes nothing and calls the POS no more.
      const calls = (await tablesCalls(location)).length;
      const again = await submit(pending.path, location);
      expect(again.status).toBe(200);
      expect((await tablesCalls(location)).length).toBe(calls);
      expect((await tables(pending.venueId, partner.token)).body.tables).toHaveLength(3);
    });

    it('[DES-095] [PATV-23] a location already connected to another venue is refused: "location already connected", nothing changes', async () => {
      const first = await createPending();
      const second = await createPending();
      const location = await newLocation();
      expect((await submit(first.path, location)).status).toBe(200);
      const firstTables = (await tables(first.venueId)).body;

      const refused = await submit(second.path, location);
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(textOf(refused.text)).toContain('location already connected');
      expect(refused.text).toMatch(/role="alert"[^>]*>[^]*location already connected/);
      // The form is offered again, for another location id.
      expectForm(refused);

      // Nothing changed: the second venue has no POS connection, the first keeps its own.
      const f = await features(second.venueId);
      expect(f.status).toBe(404);
      expect(f.body.error.message).toMatch(/no POS connection found/i);
      expect((await tables(second.venueId)).status).toBe(404);
      expect(await posCodeOf(second.venueId)).toBeNull();
      expect((await features(first.venueId)).status).toBe(200);
      expect((await tables(first.venueId)).body).toEqual(firstTables);
      expectForm(await openPage(second.path));

      // The same location id on another POS type is another location.
      const otherType = await createPending({ posType: POS.deferred });
      expect((await submit(otherType.path, location)).status).toBe(200);
      expect((await features(otherType.venueId)).body.posCode).toBe(POS.deferred);

      // The refused venue can still connect a free location.
      const free = await newLocation();
      expect((await submit(second.path, free)).status).toBe(200);
      expect((await features(second.venueId)).status).toBe(200);
    });

    it('[DES-095] [PATV-23] venues racing for one location: exactly one connects, every other sees "location already connected"', async () => {
      const racers = await Promise.all(Array.from({ length: 6 }, () => createPending()));
      const location = await newLocation();
      const pages = await Promise.all(racers.map((p) => submit(p.path, location)));
      const won = pages.filter((p) => p.status === 200);
      expect(won, pages.map((p) => `${p.status} ${textOf(p.text).slice(0, 120)}`).join('\n')).toHaveLength(1);
      for (const p of pages.filter((x) => x.status !== 200)) expect(textOf(p.text)).toContain('location already connected');
      const statuses = await Promise.all(racers.map((p) => features(p.venueId).then((r) => r.status)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 404)).toHaveLength(racers.length - 1);
      const { rows } = await sql`SELECT venue_id FROM pos_connections WHERE pos_type = ${POS.immediate} AND pos_venue_id = ${location}`.execute(w.app.db.kysely);
      expect(rows).toHaveLength(1);
    });

    it('[DES-095] [PATV-23] a location connected by another partner’s venue is refused too', async () => {
      const otherPartner = await w.app.newPartner(['pat']);
      const theirs = await createPending({ partner: otherPartner });
      const mine = await createPending();
      const location = await newLocation();
      expect((await submit(theirs.path, location)).status).toBe(200);
      const refused = await submit(mine.path, location);
      expect(textOf(refused.text)).toContain('location already connected');
      expect((await features(mine.venueId)).status).toBe(404);
      expect((await features(theirs.venueId, otherPartner.token)).status).toBe(200);
    });

    it('[DES-096] a failing POS call (unknown location: the POS answers 404) shows a readable error and leaves the request open', async () => {
      const pending = await createPending();
      const missing = `nowhere-${process.pid}-${++locations}`;
      const res = await submit(pending.path, missing);
      // The service did call the POS, which did not know the location.
      const calls = await tablesCalls(missing);
      expect(calls).toHaveLength(1);
      expect(calls[0].status).toBe(404);

      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      const text = textOf(res.text);
      expect(text).toMatch(/does not know that location id/i);
      expect(res.text).toMatch(/role="alert"/);
      // Readable: no status codes, paths, stack traces or JSON.
      expect(text).not.toMatch(/\b404\b|\/venue\/|Error:|at .*\.ts|[{}]/);
      // The submitted id stays in the field, ready to correct.
      expect(res.text).toContain(`value="${missing}"`);
      expectForm(res);

      expect((await features(pending.venueId)).status).toBe(404);
      expect(await posCodeOf(pending.venueId)).toBeNull();
      expectForm(await openPage(pending.path));

      // A later submission with the right location id succeeds.
      const location = await newLocation();
      const ok = await submit(pending.path, location);
      expect(ok.status).toBe(200);
      expect(textOf(ok.text)).toMatch(/connected/i);
      expect((await features(pending.venueId)).status).toBe(200);
      expect((await tables(pending.venueId)).body.tables).toHaveLength(3);
    });

    it('[DES-096] a POS answer the service cannot use is a readable error; the same id succeeds once the POS is fixed', async () => {
      const pending = await createPending();
      // This broken mode answers numeric-looking table ids as JSON numbers, against spec 2.6.
      const location = await newLocation([{ id: '1', name: 'Table 1' }, { id: '2', name: 'Table 2' }]);
      await w.sim.control.setBroken('tables-numeric-ids');
      let res: HttpResponse;
      try {
        res = await submit(pending.path, location);
      } finally {
        await w.sim.control.setBroken(null);
      }
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(textOf(res.text)).toMatch(/could not use|try again/i);
      expect(res.text).toMatch(/role="alert"/);
      expect((await features(pending.venueId)).status).toBe(404);

      const ok = await submit(pending.path, location);
      expect(ok.status).toBe(200);
      expect((await features(pending.venueId)).status).toBe(200);
    });

    it('[DES-096] an empty location id is refused with a readable error and nothing is called', async () => {
      const pending = await createPending();
      for (const value of ['', '   ']) {
        const res = await submit(pending.path, value);
        expect(res.status).toBe(400);
        expect(res.text).toMatch(/role="alert"/);
        expect(textOf(res.text)).toMatch(/enter the POS location id/i);
      }
      expect((await features(pending.venueId)).status).toBe(404);
    });

    it('[DES-096] a location id with control characters is refused on the page (never a 500), and the request stays open', async () => {
      const pending = await createPending();
      for (const value of ['loc\u0000x', 'loc\nx', 'loc\u007fx']) {
        const res = await submit(pending.path, value);
        expect(res.status, res.text).toBe(400);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.text).toMatch(/role="alert"/);
        expect(textOf(res.text)).toMatch(/cannot contain control characters/i);
      }
      expect((await features(pending.venueId)).status).toBe(404);
      expect((await submit(pending.path, await newLocation())).status).toBe(200);
    });
  });
});

// ---- in a real browser ----

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
if (!hasChromium && !inCi) {
  console.warn(`onboarding browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium). CI always runs it.`);
}

describe('the onboarding page in headless Chromium (JavaScript disabled)', () => {
  it.skipIf(!hasChromium && !inCi)(
    '[DES-091] [DES-092] [DES-094] [DES-095] [DES-096] [PATV-21] [PATV-23] [BKG-24] accessible, keyboard-only, works without JavaScript (pay-at-table and RMS venues)',
    async () => {
      if (!hasChromium) {
        throw new Error(`The browser test needs Chromium at ${CHROMIUM} (Debian package "chromium": apt-get install -y chromium); it is missing.`);
      }
      // The link is served exactly as a restaurant receives it: PUBLIC_BASE_URL is this server.
      const port = await freePort();
      const world = await startPatWorld({ config: { port }, env: { PUBLIC_BASE_URL: `https://127.0.0.1:${port}`, POS_TIMEOUT_MS: '10000' } });
      const dir = mkdtempSync(join(tmpdir(), 'tableside-onboarding-browser-'));
      let browser: Browser | undefined;
      try {
        const first = await createPending({ world, name: 'Trattoria Keyboard' });
        const second = await createPending({ world, name: 'Osteria Duplicate' });
        expect(first.url.startsWith(`https://127.0.0.1:${port}/onboarding/`)).toBe(true);
        const location = await newLocation(TABLES, world);

        browser = await chromium.launch({
          executablePath: CHROMIUM,
          args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        });
        const context = await browser.newContext({ ignoreHTTPSErrors: true, javaScriptEnabled: false });
        const page = await context.newPage();

        // A wrong secret: no form.
        const bad = await page.goto(first.url.replace(/t=.*/, 't=wrong'));
        expect(bad!.status()).toBeGreaterThanOrEqual(400);
        expect(await page.locator('form').count()).toBe(0);

        const response = await page.goto(first.url);
        expect(response!.status()).toBe(200);
        await expectAccessibleForm(page, 'Trattoria Keyboard');

        // A location the POS does not know: the error is announced.
        await typeLocationAndEnter(page, 'no-such-location');
        const alert = page.getByRole('alert');
        await alert.waitFor();
        expect(await alert.innerText()).toMatch(/does not know that location id/i);
        const input = page.getByLabel('POS location id');
        expect(await input.getAttribute('aria-invalid')).toBe('true');
        expect((await input.getAttribute('aria-describedby'))!.split(' ')).toContain(await alert.getAttribute('id'));
        await page.screenshot({ path: join(dir, 'onboarding-error.png'), fullPage: true });

        // The right location, typed over the previous one.
        await typeLocationAndEnter(page, location);
        await page.getByRole('heading', { name: /your point of sale is connected/i }).waitFor();
        const status = page.getByRole('status');
        expect(await status.innerText()).toMatch(/Pay at table is now active for Trattoria Keyboard\. 3 tables were imported/);
        const shot = join(dir, 'onboarding-connected.png');
        await page.screenshot({ path: shot, fullPage: true });
        expect(existsSync(shot)).toBe(true);
        expect(statSync(shot).size).toBeGreaterThan(0);
        expect((await world.app.http.get(`/v1/pat/venue/${first.venueId}/features`, { token: world.partner.token })).status).toBe(200);

        // Another venue trying the same location is told it is already connected.
        await page.goto(second.url);
        await expectAccessibleForm(page, 'Osteria Duplicate');
        await typeLocationAndEnter(page, location);
        const refused = page.getByRole('alert');
        await refused.waitFor();
        expect(await refused.innerText()).toContain('location already connected');
        expect(await page.locator('form').count()).toBe(1);
        expect((await world.app.http.get(`/v1/pat/venue/${second.venueId}/features`, { token: world.partner.token })).status).toBe(404);

        // The same page onboards an RMS venue (DESIGN 8.3c): its link comes from POST /v1/rms/venues/{externalId}/pos-connection.
        const rms = (await world.app.newPartner(['rms'], 'RMS partner')) as TestPartner & { apiKey: string };
        const rmsVenue = await world.app.http.post('/v1/rms/venues', {
          token: rms.apiKey, body: { externalId: 'browser-rms', name: 'Bodega Reservada', countryCode: 'ES', city: 'Madrid', currency: 'EUR' },
        });
        expect(rmsVenue.status, rmsVenue.text).toBe(200);
        const rmsLink = await world.app.http.post('/v1/rms/venues/browser-rms/pos-connection', { token: rms.apiKey, body: { posType: POS.immediate } });
        expect(rmsLink.status, rmsLink.text).toBe(200);
        expect(rmsLink.body.onboarding.url.startsWith(`https://127.0.0.1:${port}/onboarding/`)).toBe(true);
        await page.goto(rmsLink.body.onboarding.url);
        await expectAccessibleForm(page, 'Bodega Reservada');
        await typeLocationAndEnter(page, await newLocation(TABLES, world));
        await page.getByRole('heading', { name: /your point of sale is connected/i }).waitFor();
        const rmsTables = await world.app.http.get('/v1/rms/venues/browser-rms/pos-tables', { token: rms.apiKey });
        expect(rmsTables.status).toBe(200);
        expect(rmsTables.body.count).toBe(TABLES.length);
      } finally {
        await browser?.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    // A browser and a second service on a busy machine: more than the default minute.
    180_000,
  );
});

async function expectAccessibleForm(page: Page, venueName: string) {
  // The document declares its language and has a title and one top-level heading.
  expect(await page.locator('html').getAttribute('lang')).toMatch(/^[a-z]{2}/);
  expect(await page.title()).not.toBe('');
  const heading = page.getByRole('heading', { level: 1 });
  expect(await heading.count()).toBe(1);
  expect(await heading.isVisible()).toBe(true);
  expect(await page.locator('main').innerText()).toContain(venueName);
  // A visible label bound to the input: the input is found by its label's text.
  const label = page.locator('label[for="posVenueId"]');
  expect(await label.isVisible()).toBe(true);
  const input = page.getByLabel('POS location id');
  expect(await input.count()).toBe(1);
  expect(await input.getAttribute('name')).toBe('posVenueId');
  expect(await input.isVisible()).toBe(true);
  expect(await page.getByRole('button', { name: 'Connect' }).isVisible()).toBe(true);
}

/** Keyboard only: Tab to the field (the first control on the page), replace its text, press Enter. */
async function typeLocationAndEnter(page: Page, posVenueId: string) {
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('posVenueId');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(posVenueId);
  const navigated = page.waitForEvent('load');
  await page.keyboard.press('Enter');
  await navigated;
}
