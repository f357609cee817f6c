import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { AuthService } from '../auth/auth.service.ts';
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { uuidv7 } from '../lib/ids.ts';
import type { PatVenuesService } from '../pat/venues.service.ts';
import type { PosTypeRegistry } from '../pos/pos-types.ts';
import type { ConnectionsService } from '../pos-mirror/connections.service.ts';
import type { OrderSyncService } from '../pos-mirror/sync.service.ts';
import { sandboxFile, writeSandboxJson } from './ports.ts';
import { seedSeatingVenue, type SeatingSandbox, type SeatingSandboxDeps } from './seating.ts';

// Sandbox mode (`npm start`, `tableside serve --sandbox`). On first start: a partner with every kind of access, and two venues
// connected to the in-process POS simulator (one confirming payments immediately, one deferred),
// with tables and open orders; credentials are printed and written to sandbox.json so a newcomer
// can read a bill and pay it at once. Later starts reuse all of it (nothing is seeded twice); an
// expired access token is replaced.

export interface SandboxFile {
  baseUrl: string;
  /** The certificate the sandbox presents (its generated one; the simulators always): what `--ca` and curl's `--cacert` take. */
  caFile: string;
  partnerId: string;
  apiKey: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  accessTokenExpiresAt: string;
  venueIds: string[];
  venues: Array<{ id: string; name: string; posType: string; posVenueId: string; paymentConfirmation: string }>;
  posSimulator: { baseUrl: string; apiKey: string } | null;
  /** A venue to seat a booking at with the apiKey (POST /v1/rms/pos/reservations); null without the simulator. */
  seating: SeatingSandbox | null;
}

export { sandboxFile };
const SANDBOX_TOKEN_TTL_S = 30 * 24 * 3600;

/** The simulator's demo locations and the sandbox venues connected to them. */
export const SANDBOX_VENUES = [
  { posVenueId: 'sim-venue-1', posType: 'simulator', name: 'Sandbox Bistro', city: 'Paris', country: 'FR', timezone: 'Europe/Paris', currency: 'EUR', address: '12 Rue de Rivoli', postalCode: '75004' },
  { posVenueId: 'sim-venue-2', posType: 'simulator-deferred', name: 'Sandbox Brasserie', city: 'London', country: 'GB', timezone: 'Europe/London', currency: 'GBP', address: '8 Long Acre', postalCode: 'WC2E 9LH' },
] as const;

interface SandboxDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  auth: Pick<AuthService, 'createPartner' | 'newCredentials' | 'issueToken' | 'scopeNewVenue'>;
  venues: Pick<PatVenuesService, 'addVenue'>;
  connections: Pick<ConnectionsService, 'connect' | 'forVenue'>;
  orderSync: Pick<OrderSyncService, 'syncVenueNow'>;
  posTypes: PosTypeRegistry;
  dataDir: string;
  baseUrl: string;
  posSimulator: { baseUrl: string; apiKey: string } | null;
  /** What seeds the seatable venue (the content venues service and the simulator's control API); null: none. */
  seating: Pick<SeatingSandboxDeps, 'venues' | 'posControl'> | null;
}

interface SandboxSetting {
  partnerId: string;
  venueIds?: string[];
}

/** Creates a sandbox venue connected to its simulator location, and reads its orders once. */
async function seedVenue(deps: SandboxDeps, partnerId: string, v: (typeof SANDBOX_VENUES)[number]): Promise<string> {
  const venueId = uuidv7();
  await deps.connections.connect({ venueId, posType: deps.posTypes.get(v.posType)!, posVenueId: v.posVenueId }, async (tx, now) => {
    await deps.venues.addVenue(tx, partnerId, {
      id: venueId, name: v.name, address: v.address, city: v.city, postalCode: v.postalCode, countryCode: v.country,
      timezone: v.timezone, currency: v.currency, posType: v.posType, phoneNumber: null, email: null,
    }, now);
    // Recorded with the venue itself: a start interrupted after this commit never seeds it again.
    await sql`UPDATE settings
              SET value = jsonb_set(value, '{venueIds}', coalesce(value->'venueIds', '[]'::jsonb) || to_jsonb(${venueId}::text)),
                  updated_at = ${now}
              WHERE key = 'sandbox'`.execute(tx);
  });
  // Its sync job is then due one interval later, not at once (it would read the same orders again).
  await deps.orderSync.syncVenueNow(venueId);
  return venueId;
}

export async function setupSandbox(deps: SandboxDeps): Promise<SandboxFile> {
  const { db, clock, auth, dataDir, baseUrl } = deps;
  const file = sandboxFile(dataDir);
  const { rows } = await sql<{ value: SandboxSetting }>`SELECT value FROM settings WHERE key = 'sandbox'`.execute(db.kysely);
  const setting = rows[0]?.value ?? null;
  const previous: Partial<SandboxFile> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};

  let credentials: Pick<SandboxFile, 'partnerId' | 'apiKey' | 'clientId' | 'clientSecret'>;
  if (setting && previous.partnerId === setting.partnerId && previous.apiKey && previous.clientSecret && previous.clientId) {
    credentials = { partnerId: previous.partnerId, apiKey: previous.apiKey, clientId: previous.clientId, clientSecret: previous.clientSecret };
  } else if (setting) {
    // The partner exists but its credential file was lost: secrets cannot be shown again, so the
    // same partner gets new ones.
    const fresh = await auth.newCredentials(setting.partnerId);
    credentials = { partnerId: fresh.partnerId, apiKey: fresh.apiKey!, clientId: fresh.clientId!, clientSecret: fresh.clientSecret! };
  } else {
    const created = await auth.createPartner({ name: 'Sandbox partner', access: ['rms', 'pat', 'analytics'] });
    credentials = { partnerId: created.partnerId, apiKey: created.apiKey!, clientId: created.clientId!, clientSecret: created.clientSecret! };
    await sql`INSERT INTO settings (key, value, updated_at)
              VALUES ('sandbox', ${JSON.stringify({ partnerId: created.partnerId })}::jsonb, ${clock.now()})`.execute(db.kysely);
  }

  // Each venue is recorded in the transaction that seeds it, so a first start that stopped half-way
  // (killed, or a POS call failed) is completed by the next one instead of seeding a venue twice,
  // which the unique POS location would refuse at every later start.
  const venueIds = [...(setting?.venueIds ?? [])];
  if (deps.posSimulator) {
    for (const v of SANDBOX_VENUES.slice(venueIds.length)) venueIds.push(await seedVenue(deps, credentials.partnerId, v));
  }

  const seating = deps.posSimulator && deps.seating
    ? await seedSeatingVenue({ ...deps.seating, auth: deps.auth, connections: deps.connections, posTypes: deps.posTypes }, credentials.partnerId)
    : null;

  let accessToken = previous.accessToken && previous.partnerId === credentials.partnerId ? previous.accessToken : '';
  let accessTokenExpiresAt = accessToken ? (previous.accessTokenExpiresAt ?? new Date(0).toISOString()) : new Date(0).toISOString();
  if (new Date(accessTokenExpiresAt).getTime() < clock.now().getTime() + 24 * 3600 * 1000) {
    const token = await auth.issueToken(credentials.partnerId, SANDBOX_TOKEN_TTL_S);
    accessToken = token.accessToken;
    accessTokenExpiresAt = new Date(clock.now().getTime() + token.expiresIn * 1000).toISOString();
  }

  const sandbox: SandboxFile = {
    baseUrl,
    caFile: resolve(dataDir, 'tls.crt'),
    ...credentials,
    accessToken,
    accessTokenExpiresAt,
    venueIds,
    venues: venueIds.map((id, i) => {
      const v = SANDBOX_VENUES[i];
      const posType = deps.posTypes.get(v?.posType ?? '');
      return { id, name: v?.name ?? '', posType: v?.posType ?? '', posVenueId: v?.posVenueId ?? '', paymentConfirmation: posType?.paymentConfirmation ?? '' };
    }),
    posSimulator: deps.posSimulator,
    seating,
  };
  writeSandboxJson(file, sandbox);
  return sandbox;
}
