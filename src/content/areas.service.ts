import type { Db, Executor } from '../db/db.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { Clock } from '../lib/clock.ts';
import { conflict, notFound, ProblemList } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import * as repo from './areas.repository.ts';
import type { Area, CreateAreaBody, ListAreasQuery, UpdateAreaBody } from './areas.schemas.ts';
import { couldBeId, pageOf, pick } from './content.fns.ts';
import { checkTranslations, localize, mergeTranslations, TRANSLATABLE } from './translations.fns.ts';
import { ownedVenueIds } from './venues.repository.ts';

// Areas of a partner's venue. Another partner's venue, or an area of another venue, is not found
// (DESIGN 5). Writes lock the venue row, so two writes making different areas the default end with
// exactly one default.

export interface AreasDeps {
  db: Pick<Db, 'kysely'>;
  clock: Clock;
}

const venueNotFound = () => notFound('No such venue.');
const areaNotFound = () => notFound('No such area.');

export function areaView(row: repo.AreaRow, locale?: string): Area {
  const base: Area = {
    id: row.id,
    venueId: row.venue_id,
    externalId: row.external_id,
    name: row.name,
    description: row.description,
    isDefault: row.is_default,
  };
  return localize(base, row.translations, locale, TRANSLATABLE.area);
}

function duplicateExternalId(externalId: string, areaId: string) {
  return conflict(`This venue already has an area with externalId "${externalId}" (${areaId}).`, {
    externalId: [`is already the externalId of area ${areaId}`],
    areaId,
  });
}

export function createAreasService({ db, clock }: AreasDeps) {
  async function requireVenue(ex: Executor, partnerId: string, venueId: string, lock: boolean): Promise<string> {
    if (!couldBeId(venueId)) throw venueNotFound();
    const id = venueId.toLowerCase();
    const owned = await ownedVenueIds(ex, partnerId, [id], lock);
    if (!owned.has(id)) throw venueNotFound();
    return id;
  }

  function checked(body: { translations?: CreateAreaBody['translations'] }) {
    const problems = new ProblemList();
    checkTranslations(body.translations, problems);
    problems.throwIfAny();
  }

  const onRace = (err: unknown, externalId: string | undefined) => {
    if (externalId !== undefined && isUniqueViolation(err, 'venue_areas_venue_id_external_id_key')) {
      throw conflict(`This venue already has an area with externalId "${externalId}".`, { externalId: ['is already used by another area of this venue'] });
    }
    throw err;
  };

  return {
    async list(partnerId: string, venueId: string, query: ListAreasQuery, locale?: string): Promise<{ total: number; data: Area[] }> {
      const id = await requireVenue(db.kysely, partnerId, venueId, false);
      const page = pageOf(query);
      const [total, rows] = await Promise.all([
        repo.countAreas(db.kysely, id),
        page.limit === 0 ? Promise.resolve([]) : repo.listAreas(db.kysely, id, page),
      ]);
      return { total, data: rows.map((r) => areaView(r, locale)) };
    },

    async get(partnerId: string, venueId: string, areaId: string, locale?: string): Promise<Area> {
      const id = await requireVenue(db.kysely, partnerId, venueId, false);
      const row = couldBeId(areaId) ? await repo.findArea(db.kysely, id, areaId) : undefined;
      if (!row) throw areaNotFound();
      return areaView(row, locale);
    },

    async create(partnerId: string, venueId: string, body: CreateAreaBody, locale?: string): Promise<Area> {
      checked(body);
      try {
        const row = await db.kysely.transaction().execute(async (tx) => {
          const id = await requireVenue(tx, partnerId, venueId, true);
          const existing = await repo.findAreaByExternalId(tx, id, body.externalId);
          if (existing) throw duplicateExternalId(body.externalId, existing.id);
          const now = clock.now();
          // The first area of a venue is its default unless told otherwise.
          const isDefault = body.isDefault ?? (await repo.countAreas(tx, id)) === 0;
          if (isDefault) await repo.clearDefault(tx, id, now);
          const area: repo.AreaRow = {
            id: uuidv7(now.getTime()),
            venue_id: id,
            external_id: body.externalId,
            name: body.name,
            description: body.description ?? null,
            is_default: isDefault,
            translations: mergeTranslations({}, body.translations),
          };
          await repo.insertArea(tx, area, now);
          return area;
        });
        return areaView(row, locale);
      } catch (err) {
        return onRace(err, body.externalId);
      }
    },

    async update(partnerId: string, venueId: string, areaId: string, body: UpdateAreaBody, locale?: string): Promise<Area> {
      checked(body);
      try {
        const row = await db.kysely.transaction().execute(async (tx) => {
          const id = await requireVenue(tx, partnerId, venueId, true);
          const current = couldBeId(areaId) ? await repo.findArea(tx, id, areaId) : undefined;
          if (!current) throw areaNotFound();
          if (body.externalId !== undefined && body.externalId !== current.external_id) {
            const other = await repo.findAreaByExternalId(tx, id, body.externalId);
            if (other) throw duplicateExternalId(body.externalId, other.id);
          }
          const now = clock.now();
          if (body.isDefault === true && !current.is_default) await repo.clearDefault(tx, id, now);
          const next: repo.AreaRow = {
            ...current,
            external_id: pick(body.externalId, current.external_id),
            name: pick(body.name, current.name),
            description: pick(body.description, current.description),
            is_default: pick(body.isDefault, current.is_default),
            translations: mergeTranslations(current.translations, body.translations),
          };
          await repo.updateArea(tx, next, now);
          return next;
        });
        return areaView(row, locale);
      } catch (err) {
        return onRace(err, body.externalId);
      }
    },
  };
}

export type AreasService = ReturnType<typeof createAreasService>;
