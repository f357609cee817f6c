import { awaitEpoch, currentEpoch } from '../auth/credential-cache.ts';
import type { Db, Executor } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { badRequest, notFound } from '../lib/errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import * as repo from './channels.repository.ts';
import { couldBeId, notYourVenues, splitVenueIds } from './content.fns.ts';
import { bumpListVersion, ownedVenueIds } from './venues.repository.ts';
import { CHANNEL_LOGO_MAX, CHANNEL_NAME_MAX, type BookingChannel, type ListChannelsQuery } from './channels.schemas.ts';

// Booking channels belong to the operator: created with `tableside channel create`, read by every
// content partner (DESIGN 5). A partner links and unlinks only its own venues: naming any other id
// is a 403 and nothing changes (DES-034).

const toChannel = (row: repo.ChannelRow): BookingChannel => ({ id: row.id, name: row.name, logo: row.logo ?? '' });

export function createChannelsService({ db, clock }: { db: Pick<Db, 'kysely'>; clock: Clock }) {
  /**
   * 404 for an unknown channel, 403 if any venue is not the partner's; else applies `apply`. Returns
   * once every process sees the change: a channel's requests read the venue with its link from
   * memory (channels/channel-api.service.ts), which the link's change drops on every process (the
   * credential epoch, migration 027), so an unlinked venue is refused everywhere from then on.
   */
  async function changeLinks(
    partnerId: string,
    channelId: string,
    venues: string[],
    apply: (tx: Executor, ids: string[]) => Promise<void>,
  ): Promise<{ venues: string[] }> {
    const { epoch, ...changed } = await db.kysely.transaction().execute(async (tx) => {
      if (!couldBeId(channelId) || !(await repo.channelExists(tx, channelId))) throw notFound('No such booking channel.');
      const candidates = [...new Set(venues.filter(couldBeId).map((id) => id.toLowerCase()))];
      const { distinct, refused } = splitVenueIds(venues, await ownedVenueIds(tx, partnerId, candidates, true));
      if (Object.keys(refused).length > 0) throw notYourVenues(refused);
      await apply(tx, distinct);
      // filters[bookingChannel] / filters[notBookingChannel] now match other venues.
      if (distinct.length > 0) await bumpListVersion(tx, partnerId);
      return { venues: distinct, epoch: await currentEpoch(tx) };
    });
    await awaitEpoch(db.kysely, epoch);
    return changed;
  }

  return {
    async create(input: { name: string; logo?: string | null }): Promise<BookingChannel> {
      const name = input.name.trim();
      if (!name) throw badRequest('name must not be empty');
      // The limits the content API documents for a channel (BookingChannel); NUL cannot be stored.
      if (name.length > CHANNEL_NAME_MAX || name.includes('\u0000')) throw badRequest(`name must be at most ${CHANNEL_NAME_MAX} characters, without NUL`);
      const logo = input.logo?.trim() || null;
      if (logo !== null && (logo.length > CHANNEL_LOGO_MAX || logo.includes('\u0000'))) {
        throw badRequest(`logo must be at most ${CHANNEL_LOGO_MAX} characters, without NUL`);
      }
      if (logo !== null) {
        let url: URL | null = null;
        try {
          url = new URL(logo);
        } catch {
          // reported below
        }
        if (!url || !['http:', 'https:'].includes(url.protocol)) throw badRequest('logo must be an http(s) URL');
      }
      const row = { id: uuidv7(), name, logo };
      await repo.insertChannel(db.kysely, row, clock.now());
      return toChannel(row);
    },

    async linkVenues(partnerId: string, channelId: string, venues: string[]): Promise<{ venues: string[] }> {
      return changeLinks(partnerId, channelId, venues, (tx, ids) => repo.linkVenues(tx, channelId.toLowerCase(), ids, clock.now()));
    },

    /** Which of these venues the channel is linked to already (ids that are no venue are not). */
    async linkedVenues(channelId: string, venues: string[]): Promise<string[]> {
      if (!couldBeId(channelId)) return [];
      return repo.linkedVenueIds(db.kysely, channelId.toLowerCase(), [...new Set(venues.filter(couldBeId).map((id) => id.toLowerCase()))]);
    },

    async unlinkVenues(partnerId: string, channelId: string, venues: string[]): Promise<{ venues: string[] }> {
      return changeLinks(partnerId, channelId, venues, (tx, ids) => repo.unlinkVenues(tx, channelId.toLowerCase(), ids));
    },

    async list(query: ListChannelsQuery): Promise<{ total: number; data: BookingChannel[] }> {
      const criteria = query['filters[criteria]'] || undefined;
      const page = { offset: query.offset ?? 0, limit: query.limit ?? 10 };
      const [total, rows] = await Promise.all([
        repo.countChannels(db.kysely, criteria),
        repo.listChannels(db.kysely, criteria, page),
      ]);
      return { total, data: rows.map(toChannel) };
    },
  };
}

export type ChannelsService = ReturnType<typeof createChannelsService>;
