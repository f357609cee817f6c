import { awaitEpoch, currentEpoch } from '../auth/credential-cache.ts';
import type { Db, Executor } from '../db/db.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Clock } from '../lib/clock.ts';
import { conflict, notFound, ProblemList, validationFailed } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import { toWire, type Minor } from '../lib/money.ts';
import { findBrand } from './brands.repository.ts';
import { findCompany, insertCompany, type CompanyRow } from './companies.repository.ts';
import { couldBeId, installLink, pageOf, pick } from './content.fns.ts';
import { checkTranslations, localize, mergeTranslations, TRANSLATABLE } from './translations.fns.ts';
import { bookableAreasOf, checkCoordinates, checkCovers, feeAmount, VersionedCache } from './venues.fns.ts';
import * as repo from './venues.repository.ts';
import type { CreateVenueBody, ListVenuesQuery, UpdateVenueBody, Venue } from './venues.schemas.ts';

// Content venues (spec 2.4, 4.5; create, get and update, which the spec does not show, as
// docs/decisions.md decides). externalId is the partner's
// own id, unique among its venues, so a nightly sync can upsert by it (PUT /venues/external/{id}).
// A venue always has a company: the one named, the one of the brand named, or one generated from
// the venue's details (spec 2.2).

export interface VenuesDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  publicBaseUrl: string;
}

const venueNotFound = () => notFound('No such venue.');

export function venueView(row: repo.VenueView, publicBaseUrl: string, locale?: string): Venue {
  const base: Venue = {
    id: row.id,
    externalId: row.external_id,
    company: { id: row.company_id, name: row.company_name },
    brand: row.brand_id ? { id: row.brand_id, name: row.brand_name ?? '' } : null,
    name: row.name,
    countryCode: row.country_code,
    address: row.address,
    city: row.city,
    postalCode: row.postal_code,
    phoneNumber: row.phone_number,
    email: row.email,
    timezone: row.timezone,
    description: row.description,
    latitude: row.latitude,
    longitude: row.longitude,
    capacity: row.capacity,
    url: row.url,
    minAdvanceBooking: row.min_advance_booking,
    minAdvanceOnlineCancelling: row.min_advance_online_cancelling,
    minCovers: row.min_covers,
    maxCovers: row.max_covers,
    currency: row.currency,
    paymentDefinition: {
      requireCreditCard: row.require_credit_card,
      deposit: { type: row.deposit_type, amount: toWire(row.deposit_amount_minor, row.currency) },
      noShowFee: { type: row.no_show_fee_type, amount: toWire(row.no_show_fee_amount_minor, row.currency) },
    },
    paymentGateway:
      row.payment_gateway === null
        ? null
        : {
            gateway: row.payment_gateway,
            sdkVersion: row.gateway_sdk_version,
            publishKey: row.gateway_publish_key ?? '',
            merchantId: row.gateway_merchant_id,
          },
    fbInstalled: row.fb_installed,
    igInstalled: row.ig_installed,
    fbInstallLink: installLink(publicBaseUrl, 'venue', row.id),
    bookableAreas: row.bookable_areas ? 'true' : 'false',
    bookingMessage: row.booking_message,
    paymentPolicy: row.payment_policy,
    confirmationMessage: row.confirmation_message,
  };
  return localize(base, row.translations, locale, TRANSLATABLE.venue);
}

type WriteBody = UpdateVenueBody;
/** A venue row before its company is known (null: one is generated). */
type PendingVenue = Omit<repo.VenueRow, 'company_id'> & { company_id: string | null };
const REQUIRED_ON_CREATE = ['externalId', 'name', 'countryCode', 'city', 'currency'] as const;

/**
 * The venue row a write produces from the stored one (none on create), after every check that
 * needs no uniqueness: company and brand ownership and coherence, money in the currency, covers,
 * coordinates, translations. `companyId` is null when a company has to be generated.
 */
async function resolveWrite(tx: Executor, partnerId: string, current: repo.VenueRow | undefined, body: WriteBody, newId: string): Promise<PendingVenue> {
  const problems = new ProblemList();
  checkTranslations(body.translations, problems);
  if (!current) for (const field of REQUIRED_ON_CREATE) if (body[field] === undefined) problems.add(field, 'is required to create a venue');
  const owners = await resolveOwners(tx, partnerId, current, body, problems);
  const fees = resolveFees(current, body, problems);
  const limits = resolveLimits(current, body, problems);
  problems.throwIfAny();
  return pendingVenue({ id: current?.id ?? newId, partnerId, current, body, checked: { ...owners, ...fees, ...limits } });
}

interface Owners {
  companyId: string | null;
  brandId: string | null;
}

/** The venue's company and brand: only the partner's own; another partner's is refused like a missing one. */
async function resolveOwners(tx: Executor, partnerId: string, current: repo.VenueRow | undefined, body: WriteBody, problems: ProblemList): Promise<Owners> {
  const company = body.company === undefined ? undefined : couldBeId(body.company) ? await findCompany(tx, partnerId, body.company) : undefined;
  if (body.company !== undefined && !company) problems.add('company', 'is not one of your companies');
  const brand = body.brand == null ? undefined : couldBeId(body.brand) ? await findBrand(tx, partnerId, body.brand) : undefined;
  if (body.brand != null && !brand) problems.add('brand', 'is not one of your brands');

  let companyId: string | null = company?.id ?? (body.company === undefined ? (brand?.company_id ?? current?.company_id ?? null) : null);
  let brandId: string | null = body.brand === null ? null : (brand?.id ?? current?.brand_id ?? null);
  if (company && brand && brand.company_id !== company.id) {
    problems.add('brand', 'belongs to another company than the one named in company');
  } else if (company && body.brand === undefined && current?.brand_id && company.id !== current.company_id) {
    problems.add('brand', "the venue's brand belongs to its current company: send brand null, or a brand of the new company");
  }
  if (body.company !== undefined && !company) companyId = current?.company_id ?? null;
  if (body.brand != null && !brand) brandId = current?.brand_id ?? null;
  return { companyId, brandId };
}

interface Fees {
  currency: string | undefined;
  depositMinor: Minor;
  noShowMinor: Minor;
}

/** The deposit and no-show fee in the venue's currency (the stored ones are checked again when the currency changes). */
function resolveFees(current: repo.VenueRow | undefined, body: WriteBody, problems: ProblemList): Fees {
  const currency = body.currency ?? current?.currency;
  const definition = body.paymentDefinition ?? {};
  if (!currency) return { currency, depositMinor: current?.deposit_amount_minor ?? 0, noShowMinor: current?.no_show_fee_amount_minor ?? 0 };
  const common = { storedCurrency: current?.currency, currency, problems };
  return {
    currency,
    depositMinor: feeAmount({ ...common, field: 'paymentDefinition.deposit.amount', given: definition.deposit?.amount, stored: current?.deposit_amount_minor }),
    noShowMinor: feeAmount({ ...common, field: 'paymentDefinition.noShowFee.amount', given: definition.noShowFee?.amount, stored: current?.no_show_fee_amount_minor }),
  };
}

interface Limits {
  minCovers: number;
  maxCovers: number | null;
  latitude: number | null;
  longitude: number | null;
}

/** Covers and coordinates, as given or as stored, each pair checked together. */
function resolveLimits(current: repo.VenueRow | undefined, body: WriteBody, problems: ProblemList): Limits {
  const minCovers = pick(body.minCovers, current?.min_covers ?? 1);
  const maxCovers = pick(body.maxCovers, current?.max_covers ?? null);
  checkCovers(minCovers, maxCovers, problems);
  const latitude = pick(body.latitude, current?.latitude ?? null);
  const longitude = pick(body.longitude, current?.longitude ?? null);
  checkCoordinates(latitude, longitude, problems);
  return { minCovers, maxCovers, latitude, longitude };
}

interface VenueWrite {
  id: string;
  partnerId: string;
  current: repo.VenueRow | undefined;
  body: WriteBody;
  /** What the checks resolved. */
  checked: Owners & Fees & Limits;
}

/** The row: each field as the body gives it (or the checks resolved), else as stored, else its default. */
function pendingVenue({ id, partnerId, current, body, checked }: VenueWrite): PendingVenue {
  const definition = body.paymentDefinition ?? {};
  const gateway = body.paymentGateway;
  return {
    id,
    owner_partner_id: partnerId,
    external_id: pick(body.externalId, current?.external_id)!,
    company_id: checked.companyId,
    brand_id: checked.brandId,
    name: pick(body.name, current?.name)!,
    country_code: pick(body.countryCode, current?.country_code)!,
    address: pick(body.address, current?.address ?? null),
    city: pick(body.city, current?.city)!,
    postal_code: pick(body.postalCode, current?.postal_code ?? null),
    phone_number: pick(body.phoneNumber, current?.phone_number ?? null),
    email: pick(body.email, current?.email ?? null),
    timezone: pick(body.timezone, current?.timezone ?? null),
    description: pick(body.description, current?.description ?? null),
    latitude: checked.latitude,
    longitude: checked.longitude,
    capacity: pick(body.capacity, current?.capacity ?? null),
    url: pick(body.url, current?.url ?? null),
    min_advance_booking: pick(body.minAdvanceBooking, current?.min_advance_booking ?? 0),
    min_advance_online_cancelling: pick(body.minAdvanceOnlineCancelling, current?.min_advance_online_cancelling ?? 0),
    min_covers: checked.minCovers,
    max_covers: checked.maxCovers,
    currency: checked.currency!,
    require_credit_card: pick(definition.requireCreditCard, current?.require_credit_card ?? false),
    deposit_type: definition.deposit?.type ?? current?.deposit_type ?? 'fixed_price',
    deposit_amount_minor: checked.depositMinor,
    no_show_fee_type: definition.noShowFee?.type ?? current?.no_show_fee_type ?? 'fixed_price',
    no_show_fee_amount_minor: checked.noShowMinor,
    payment_gateway: gateway === undefined ? (current?.payment_gateway ?? null) : (gateway?.gateway ?? null),
    gateway_sdk_version: gateway === undefined ? (current?.gateway_sdk_version ?? null) : (gateway?.sdkVersion ?? null),
    gateway_publish_key: gateway === undefined ? (current?.gateway_publish_key ?? null) : (gateway?.publishKey ?? null),
    gateway_merchant_id: gateway === undefined ? (current?.gateway_merchant_id ?? null) : (gateway?.merchantId ?? null),
    fb_installed: pick(body.fbInstalled, current?.fb_installed ?? false),
    ig_installed: pick(body.igInstalled, current?.ig_installed ?? false),
    bookable_areas: body.bookableAreas === undefined ? (current?.bookable_areas ?? false) : bookableAreasOf(body.bookableAreas),
    booking_message: pick(body.bookingMessage, current?.booking_message ?? null),
    payment_policy: pick(body.paymentPolicy, current?.payment_policy ?? null),
    confirmation_message: pick(body.confirmationMessage, current?.confirmation_message ?? null),
    translations: mergeTranslations(current?.translations ?? {}, body.translations),
  };
}

/** The company of a venue created without one: made from the venue's details (spec 2.2). */
function generatedCompany(venue: PendingVenue, id: string): CompanyRow {
  return {
    id,
    owner_partner_id: venue.owner_partner_id,
    name: venue.name,
    legal_name: null,
    address: venue.address,
    postal_code: venue.postal_code,
    city: venue.city,
    country_code: venue.country_code,
    description: null,
    min_advance_booking: venue.min_advance_booking,
    min_advance_booking_cancelling: venue.min_advance_online_cancelling,
    include_source_in_notes: false,
    sdk_key: null,
    booking_message: null,
    generated: true,
    translations: {},
  };
}

function duplicateExternalId(externalId: string, venueId: string) {
  return conflict(
    `You already have a venue with externalId "${externalId}" (${venueId}); update it with PUT /v1/rms/venues/${venueId} ` +
      'or PUT /v1/rms/venues/external/{externalId}.',
    { externalId: [`is already the externalId of venue ${venueId}`], venueId },
  );
}

export function createVenuesService({ db, clock, publicBaseUrl }: VenuesDeps) {
  const view = (row: repo.VenueView, locale?: string) => venueView(row, publicBaseUrl, locale);
  const totals = new VersionedCache<number>();
  const pages = new VersionedCache<string[]>();

  async function insert(tx: Executor, partnerId: string, body: WriteBody): Promise<repo.VenueView> {
    const now = clock.now();
    const row = await resolveWrite(tx, partnerId, undefined, body, uuidv7(now.getTime()));
    if (row.company_id === null) {
      const company = generatedCompany(row, uuidv7(now.getTime()));
      await insertCompany(tx, company, now);
      row.company_id = company.id;
    }
    await repo.insertVenue(tx, row as repo.VenueRow, now);
    await repo.bumpListVersion(tx, partnerId);
    return (await repo.findVenue(tx, partnerId, row.id))!;
  }

  /**
   * A change of a venue's timezone, currency, external id or company is read by channels' requests
   * from memory under the credential epoch, which the change bumps (migration 027): its callers
   * return once every process has dropped what it held (awaitEpoch after the commit).
   */
  async function change(tx: Executor, partnerId: string, current: repo.VenueView, body: WriteBody): Promise<repo.VenueView> {
    if (body.externalId !== undefined && body.externalId !== current.external_id) {
      const other = await repo.findVenueByExternalId(tx, partnerId, body.externalId);
      if (other) throw duplicateExternalId(body.externalId, other.id);
    }
    const row = await resolveWrite(tx, partnerId, current, body, current.id);
    await repo.updateVenue(tx, row as repo.VenueRow, clock.now());
    await repo.bumpListVersion(tx, partnerId);
    return (await repo.findVenue(tx, partnerId, row.id))!;
  }

  /** A unique violation on (owner, externalId) lost to a concurrent write: 409 naming the winner. */
  async function raced(err: unknown, partnerId: string, externalId: string | undefined): Promise<never> {
    if (externalId !== undefined && isUniqueViolation(err, 'venues_owner_external')) {
      const other = await repo.findVenueByExternalId(db.kysely, partnerId, externalId);
      if (other) throw duplicateExternalId(externalId, other.id);
    }
    throw err;
  }

  return {
    async list(partnerId: string, query: ListVenuesQuery, locale?: string): Promise<{ total: number; data: Venue[] }> {
      const zeroOne = (v: '0' | '1' | undefined) => (v === undefined ? undefined : v === '1');
      const filters: repo.VenueFilters = {
        criteria: query['filters[criteria]'] || undefined,
        city: query['filters[city]'] || undefined,
        countryCode: query['filters[countryCode]'] || undefined,
        bookingChannel: query['filters[bookingChannel]']?.toLowerCase(),
        notBookingChannel: query['filters[notBookingChannel]']?.toLowerCase(),
        fbInstalled: zeroOne(query['filters[fbInstalled]']),
        igInstalled: zeroOne(query['filters[igInstalled]']),
      };
      const page = pageOf(query);
      // A page asked before is read from its ids while the partner's list version stands, checked
      // in that statement (repo.listVenues, knownPageQuery).
      const pageKey = VersionedCache.key(partnerId, { ...filters, offset: page.offset, limit: page.limit });
      const known = pages.peek(pageKey);
      const rows = page.limit === 0 ? [] : await repo.listVenues(db, partnerId, filters, page, known && { version: known.version, ids: known.value });
      // The total is a count over every matching venue, the costly part of a list: it is reused
      // while the partner's list version (read with the page) says nothing changed since it was
      // counted, as when a client pages through.
      const version = rows.length > 0 ? (rows[0].list_version ?? 0) : await repo.listVersion(db.kysely, partnerId);
      if (rows.length > 0 && known?.version !== version) pages.set(pageKey, version, rows.map((r) => r.id));
      const key = VersionedCache.key(partnerId, filters);
      let n = totals.get(key, version);
      if (n === undefined) {
        n = await repo.countVenues(db.kysely, partnerId, filters);
        totals.set(key, version, n);
      }
      return { total: n, data: rows.map((r) => view(r, locale)) };
    },

    async get(partnerId: string, venueId: string, locale?: string): Promise<Venue> {
      const row = couldBeId(venueId) ? await repo.findVenue(db.kysely, partnerId, venueId) : undefined;
      if (!row) throw venueNotFound();
      return view(row, locale);
    },

    async getByExternalId(partnerId: string, externalId: string, locale?: string): Promise<Venue> {
      const row = await repo.findVenueByExternalId(db.kysely, partnerId, externalId);
      if (!row) throw venueNotFound();
      return view(row, locale);
    },

    /** Creates a venue; an externalId the partner already uses is a 409 naming that venue. */
    async create(partnerId: string, body: CreateVenueBody, locale?: string): Promise<Venue> {
      try {
        const row = await db.kysely.transaction().execute(async (tx) => {
          const existing = await repo.findVenueByExternalId(tx, partnerId, body.externalId);
          if (existing) throw duplicateExternalId(body.externalId, existing.id);
          return insert(tx, partnerId, body);
        });
        return view(row, locale);
      } catch (err) {
        return raced(err, partnerId, body.externalId);
      }
    },

    /** Changes the fields given and keeps the others (DESIGN 9). */
    async update(partnerId: string, venueId: string, body: UpdateVenueBody, locale?: string): Promise<Venue> {
      if (!couldBeId(venueId)) throw venueNotFound();
      try {
        const { row, epoch } = await db.kysely.transaction().execute(async (tx) => {
          const current = await repo.findVenue(tx, partnerId, venueId, true);
          if (!current) throw venueNotFound();
          return { row: await change(tx, partnerId, current, body), epoch: await currentEpoch(tx) };
        });
        await awaitEpoch(db.kysely, epoch);
        return view(row, locale);
      } catch (err) {
        return raced(err, partnerId, body.externalId);
      }
    },

    /**
     * Creates the venue with this externalId, or changes the fields given of the one that has it:
     * the idempotent write of a nightly sync. Two racing first writes of one externalId end as one
     * venue (the loser retries as an update).
     */
    async upsertByExternalId(partnerId: string, externalId: string, body: UpdateVenueBody, locale?: string): Promise<{ venue: Venue; created: boolean }> {
      if (body.externalId !== undefined && body.externalId !== externalId) {
        throw validationFailed({ externalId: ['must equal the externalId of the path (change it with PUT /v1/rms/venues/{venueId})'] });
      }
      for (let attempt = 1; ; attempt++) {
        try {
          const result = await db.kysely.transaction().execute(async (tx) => {
            const current = await repo.findVenueByExternalId(tx, partnerId, externalId, true);
            if (current) return { row: await change(tx, partnerId, current, body), created: false, epoch: await currentEpoch(tx) };
            return { row: await insert(tx, partnerId, { ...body, externalId }), created: true, epoch: null };
          });
          // A new venue was in no process's memory: nothing to wait for.
          if (result.epoch !== null) await awaitEpoch(db.kysely, result.epoch);
          return { venue: view(result.row, locale), created: result.created };
        } catch (err) {
          if (attempt < 3 && isUniqueViolation(err, 'venues_owner_external')) continue;
          throw err;
        }
      }
    },
  };
}

export type VenuesService = ReturnType<typeof createVenuesService>;
