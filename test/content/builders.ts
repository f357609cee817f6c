import { afterAll, beforeAll } from 'vitest';
import { startTestApp, type TestApp, type TestAppOptions, type TestPartner } from '../helpers/app.ts';
import type { StoreKind } from '../helpers/db.ts';

// Small builders for content tests: each creates one object through the API and returns it.

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

export async function rmsPartner(app: TestApp, name = 'RMS partner'): Promise<TestPartner & { apiKey: string }> {
  const p = await app.newPartner(['rms'], name);
  return p as TestPartner & { apiKey: string };
}

async function ok<T = any>(res: { status: number; body: any }, what: string): Promise<T> {
  if (res.status !== 200) throw new Error(`${what} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as T;
}

export async function newCompany(app: TestApp, key: string, fields: Record<string, unknown> = {}) {
  return ok(await app.http.post('/v1/rms/company', { token: key, body: { name: unique('Company'), city: 'Madrid', countryCode: 'ES', ...fields } }), 'POST /company');
}

export async function newBrand(app: TestApp, key: string, company: string, fields: Record<string, unknown> = {}) {
  return ok(await app.http.post('/v1/rms/brands', { token: key, body: { name: unique('Brand'), company, ...fields } }), 'POST /brands');
}

export function venueBody(fields: Record<string, unknown> = {}) {
  return { externalId: unique('ext'), name: unique('Venue'), countryCode: 'ES', city: 'Madrid', currency: 'EUR', ...fields };
}

export async function newVenue(app: TestApp, key: string, fields: Record<string, unknown> = {}) {
  return ok(await app.http.post('/v1/rms/venues', { token: key, body: venueBody(fields) }), 'POST /venues');
}

export async function newArea(app: TestApp, key: string, venueId: string, fields: Record<string, unknown> = {}) {
  return ok(await app.http.post(`/v1/rms/venues/${venueId}/areas`, { token: key, body: { externalId: unique('area'), name: unique('Area'), ...fields } }), 'POST area');
}

export async function newChannel(app: TestApp, name = unique('Channel')) {
  return app.service.app.services.channels.create({ name, logo: 'https://cdn.example.com/logo.png' });
}

/**
 * The enclosing describe's app and RMS partner: starts a test app on `store` before its tests (then
 * `ready` gets the app and the partner's API key, and may build more), and closes it after them.
 */
export function withRmsApp(
  store: StoreKind,
  ready: (app: TestApp, apiKey: string) => void | Promise<void>,
  options: Omit<TestAppOptions, 'store'> = {},
): void {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startTestApp({ store, ...options });
    await ready(app, (await rmsPartner(app)).apiKey);
  });
  afterAll(async () => {
    await app?.close();
  });
}
