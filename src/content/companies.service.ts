import { awaitEpoch, currentEpoch } from '../auth/credential-cache.ts';
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { notFound, ProblemList } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import * as repo from './companies.repository.ts';
import type { Company, CreateCompanyBody, ListCompaniesQuery, UpdateCompanyBody } from './companies.schemas.ts';
import { couldBeId, installLink, pageOf, pick } from './content.fns.ts';
import { checkTranslations, localize, mergeTranslations, TRANSLATABLE } from './translations.fns.ts';

// Companies (spec 2.2, 4.3): the legal entities owning a partner's venues. A partner sees and
// changes only its own (DESIGN 5); another partner's company answers 404 like a missing one.

export interface CompaniesDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  publicBaseUrl: string;
}

export function companyView(row: repo.CompanyRow, publicBaseUrl: string, locale?: string): Company {
  const base: Company = {
    id: row.id,
    name: row.name,
    legalName: row.legal_name,
    address: row.address,
    postalCode: row.postal_code,
    city: row.city,
    countryCode: row.country_code,
    description: row.description,
    minAdvanceBooking: row.min_advance_booking,
    minAdvanceBookingCancelling: row.min_advance_booking_cancelling,
    includeSourceInNotes: row.include_source_in_notes,
    sdkKey: row.sdk_key,
    fbInstallLink: installLink(publicBaseUrl, 'company', row.id),
    bookingMessage: row.booking_message,
  };
  return localize(base, row.translations, locale, TRANSLATABLE.company);
}

const companyNotFound = () => notFound('No such company.');

export function createCompaniesService({ db, clock, publicBaseUrl }: CompaniesDeps) {
  const view = (row: repo.CompanyRow, locale?: string) => companyView(row, publicBaseUrl, locale);

  return {
    async list(partnerId: string, query: ListCompaniesQuery, locale?: string): Promise<{ total: number; data: Company[] }> {
      const page = pageOf(query);
      const [total, rows] = await Promise.all([
        repo.countCompanies(db.kysely, partnerId),
        page.limit === 0 ? Promise.resolve([]) : repo.listCompanies(db.kysely, partnerId, page),
      ]);
      return { total, data: rows.map((r) => view(r, locale)) };
    },

    async get(partnerId: string, companyId: string, locale?: string): Promise<Company> {
      const row = couldBeId(companyId) ? await repo.findCompany(db.kysely, partnerId, companyId) : undefined;
      if (!row) throw companyNotFound();
      return view(row, locale);
    },

    async create(partnerId: string, body: CreateCompanyBody, locale?: string): Promise<Company> {
      const problems = new ProblemList();
      checkTranslations(body.translations, problems);
      problems.throwIfAny();
      const row: repo.CompanyRow = {
        id: uuidv7(clock.now().getTime()),
        owner_partner_id: partnerId,
        name: body.name,
        legal_name: body.legalName ?? null,
        address: body.address ?? null,
        postal_code: body.postalCode ?? null,
        city: body.city,
        country_code: body.countryCode,
        description: body.description ?? null,
        min_advance_booking: body.minAdvanceBooking ?? 0,
        min_advance_booking_cancelling: body.minAdvanceBookingCancelling ?? 0,
        include_source_in_notes: body.includeSourceInNotes ?? false,
        sdk_key: body.sdkKey ?? null,
        booking_message: body.bookingMessage ?? null,
        generated: false,
        translations: mergeTranslations({}, body.translations),
      };
      await repo.insertCompany(db.kysely, row, clock.now());
      return view(row, locale);
    },

    /**
     * Changes the fields given, keeps the others; answers [true] (spec 4.3). Returns once every
     * process sees new booking settings: channels' requests read them from memory under the
     * credential epoch, which a change of them bumps (migration 027).
     */
    async update(partnerId: string, companyId: string, body: UpdateCompanyBody): Promise<[true]> {
      if (!couldBeId(companyId)) throw companyNotFound();
      const problems = new ProblemList();
      checkTranslations(body.translations, problems);
      problems.throwIfAny();
      const epoch = await db.kysely.transaction().execute(async (tx) => {
        const current = await repo.findCompany(tx, partnerId, companyId, true);
        if (!current) throw companyNotFound();
        const next: repo.CompanyRow = {
          ...current,
          name: pick(body.name, current.name),
          legal_name: pick(body.legalName, current.legal_name),
          address: pick(body.address, current.address),
          postal_code: pick(body.postalCode, current.postal_code),
          city: pick(body.city, current.city),
          country_code: pick(body.countryCode, current.country_code),
          description: pick(body.description, current.description),
          min_advance_booking: pick(body.minAdvanceBooking, current.min_advance_booking),
          min_advance_booking_cancelling: pick(body.minAdvanceBookingCancelling, current.min_advance_booking_cancelling),
          include_source_in_notes: pick(body.includeSourceInNotes, current.include_source_in_notes),
          sdk_key: pick(body.sdkKey, current.sdk_key),
          booking_message: pick(body.bookingMessage, current.booking_message),
          translations: mergeTranslations(current.translations, body.translations),
        };
        await repo.updateCompany(tx, next, clock.now());
        return currentEpoch(tx);
      });
      await awaitEpoch(db.kysely, epoch);
      return [true];
    },
  };
}

export type CompaniesService = ReturnType<typeof createCompaniesService>;
