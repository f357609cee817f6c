import { awaitEpoch, currentEpoch } from '../auth/credential-cache.ts';
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { notFound, ProblemList, validationFailed } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import * as brandsRepo from './brands.repository.ts';
import type { Brand, CreateBrandBody, ListBrandsQuery, UpdateBrandBody } from './brands.schemas.ts';
import { findCompany } from './companies.repository.ts';
import { couldBeId, installLink, notYourVenues, pageOf, pick, splitVenueIds } from './content.fns.ts';
import { checkTranslations, localize, mergeTranslations, TRANSLATABLE } from './translations.fns.ts';
import * as venuesRepo from './venues.repository.ts';

// Brands (spec 2.3, 4.4): groups of venues within one company. A partner names only its own
// company, sees and changes only its own brands, and links only its own venues (DESIGN 5).

export interface BrandsDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
  publicBaseUrl: string;
}

const brandNotFound = () => notFound('No such brand.');

export function createBrandsService({ db, clock, publicBaseUrl }: BrandsDeps) {
  const view = (row: brandsRepo.BrandView): Brand => ({
    id: row.id,
    name: row.name,
    company: { id: row.company_id, name: row.company_name },
    logo: row.logo,
    fbInstalled: row.fb_installed,
    igInstalled: row.ig_installed,
    fbInstallLink: installLink(publicBaseUrl, 'brand', row.id),
  });

  /** Locks the brand and the named venues, or throws 404 / 403 before anything changes. */
  async function lockForLink(tx: Parameters<typeof brandsRepo.findBrand>[0], partnerId: string, brandId: string, venues: string[]) {
    const brand = couldBeId(brandId) ? await brandsRepo.findBrand(tx, partnerId, brandId, true) : undefined;
    if (!brand) throw brandNotFound();
    const candidates = [...new Set(venues.filter(couldBeId).map((id) => id.toLowerCase()))];
    const owned = await venuesRepo.ownedVenueIds(tx, partnerId, candidates, true);
    const { distinct, refused } = splitVenueIds(venues, owned);
    if (Object.keys(refused).length > 0) throw notYourVenues(refused);
    return { brand, ids: distinct };
  }

  return {
    async list(partnerId: string, query: ListBrandsQuery): Promise<{ total: number; data: Brand[] }> {
      const page = pageOf(query);
      const [total, rows] = await Promise.all([
        brandsRepo.countBrands(db.kysely, partnerId),
        page.limit === 0 ? Promise.resolve([]) : brandsRepo.listBrands(db.kysely, partnerId, page),
      ]);
      return { total, data: rows.map(view) };
    },

    async get(partnerId: string, brandId: string): Promise<Brand> {
      const row = couldBeId(brandId) ? await brandsRepo.findBrand(db.kysely, partnerId, brandId) : undefined;
      if (!row) throw brandNotFound();
      return view(row);
    },

    async create(partnerId: string, body: CreateBrandBody): Promise<Brand> {
      const problems = new ProblemList();
      checkTranslations(body.translations, problems);
      problems.throwIfAny();
      return db.kysely.transaction().execute(async (tx) => {
        // Another partner's company is refused exactly like a missing one (DES-035).
        const company = couldBeId(body.company) ? await findCompany(tx, partnerId, body.company) : undefined;
        if (!company) throw validationFailed({ company: ['is not one of your companies'] });
        const row: brandsRepo.BrandRow = {
          id: uuidv7(clock.now().getTime()),
          owner_partner_id: partnerId,
          company_id: company.id,
          name: body.name,
          logo: body.logo ?? null,
          fb_installed: body.fbInstalled ?? null,
          ig_installed: body.igInstalled ?? null,
          widget_legal_text: body.widgetLegalText ?? null,
          booking_approach: body.bookingApproach ?? null,
          translations: mergeTranslations({}, body.translations),
        };
        await brandsRepo.insertBrand(tx, row, clock.now());
        return view({ ...row, company_name: company.name });
      });
    },

    async update(partnerId: string, brandId: string, body: UpdateBrandBody): Promise<Brand> {
      if (!couldBeId(brandId)) throw brandNotFound();
      const problems = new ProblemList();
      checkTranslations(body.translations, problems);
      problems.throwIfAny();
      return db.kysely.transaction().execute(async (tx) => {
        const current = await brandsRepo.findBrand(tx, partnerId, brandId, true);
        if (!current) throw brandNotFound();
        const next: brandsRepo.BrandView = {
          ...current,
          name: body.name,
          logo: pick(body.logo, current.logo),
          fb_installed: pick(body.fbInstalled, current.fb_installed),
          ig_installed: pick(body.igInstalled, current.ig_installed),
          widget_legal_text: pick(body.widgetLegalText, current.widget_legal_text),
          booking_approach: pick(body.bookingApproach, current.booking_approach),
          translations: mergeTranslations(current.translations, body.translations),
        };
        await brandsRepo.updateBrand(tx, next, clock.now());
        return view(next);
      });
    },

    /**
     * Puts the venues under the brand, and so under its company; answers the brand (spec 4.4). A
     * venue that changes company takes that company's booking settings, which channels' requests
     * read from memory under the credential epoch (migration 027): returns once every process sees them.
     */
    async linkVenues(partnerId: string, brandId: string, venues: string[]): Promise<Brand> {
      const { brand, epoch } = await db.kysely.transaction().execute(async (tx) => {
        const { brand, ids } = await lockForLink(tx, partnerId, brandId, venues);
        await venuesRepo.setBrand(tx, ids, brand.id, brand.company_id, clock.now());
        return { brand, epoch: await currentEpoch(tx) };
      });
      await awaitEpoch(db.kysely, epoch);
      return view(brand);
    },

    /** Takes the venues out of the brand (venues of another brand or none are left as they are). */
    async unlinkVenues(partnerId: string, brandId: string, venues: string[]): Promise<Brand> {
      return db.kysely.transaction().execute(async (tx) => {
        const { brand, ids } = await lockForLink(tx, partnerId, brandId, venues);
        await venuesRepo.clearBrand(tx, ids, brand.id, clock.now());
        return view(brand);
      });
    },

    /**
     * The brand's widget legal text in a locale (falling back to the base text): the write field is
     * never answered by the content API; this is its reader for the booking widget (DESIGN 8).
     */
    async widgetLegalText(partnerId: string, brandId: string, locale?: string): Promise<string | null> {
      const row = couldBeId(brandId) ? await brandsRepo.findBrand(db.kysely, partnerId, brandId) : undefined;
      if (!row) throw brandNotFound();
      return localize({ widgetLegalText: row.widget_legal_text }, row.translations, locale, TRANSLATABLE.brand).widgetLegalText;
    },
  };
}

export type BrandsService = ReturnType<typeof createBrandsService>;
