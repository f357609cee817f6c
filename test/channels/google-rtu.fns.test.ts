import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  changedFields, dayEntries, dayHash, daysTouched, googleFieldsOf, notificationOf, readServiceAccount, retryDelayMs, withinRetryWindow,
} from '../../src/channels/google-rtu.fns.ts';
import type { VenueRecords } from '../../src/channels/google-feeds.fns.ts';

// The pure rules of Google's real-time updates (DESIGN 8.7b), without a network or a database.

const venue = { id: 'venue-1', name: 'The Anchor', city: null, countryCode: null, latitude: null, longitude: null, url: null, maxCovers: 3 };
const sec = (iso: string) => new Date(iso).getTime() / 1000;

describe('booking notifications', () => {
  const confirmed = googleFieldsOf({ status: 'confirmed', start: '2025-06-11T18:00:00Z', partySize: 2 });

  it('[CHN-34] updateMask names exactly the fields that differ from what Google accepted; all of them when it accepted nothing', () => {
    expect(changedFields(null, confirmed)).toEqual(['status', 'startTime', 'partySize']);
    expect(changedFields(confirmed, confirmed)).toEqual([]);
    expect(changedFields(confirmed, googleFieldsOf({ status: 'seated', start: '2025-06-11T18:00:00Z', partySize: 2 }))).toEqual([]);
    const moved = googleFieldsOf({ status: 'canceled', start: '2025-06-11T19:00:00.000Z', partySize: 2 });
    expect(changedFields(confirmed, moved)).toEqual(['status', 'startTime']);
    expect(notificationOf('venue-1', moved, ['status'])).toEqual({ merchantId: 'venue-1', status: 'CANCELED' });
  });
});

describe('retries', () => {
  it('[CHN-36] the first retry comes within 10 s, doubling to at most 5 min; Retry-After wins; 24 h from the first failure', () => {
    expect([1, 2, 3, 7, 30].map((n) => retryDelayMs(n, null))).toEqual([5_000, 10_000, 20_000, 300_000, 300_000]);
    expect(retryDelayMs(1, 120_000)).toBe(120_000);
    const since = new Date('2025-06-10T09:00:00Z');
    expect(withinRetryWindow(since, new Date('2025-06-11T08:59:59Z'))).toBe(true);
    expect(withinRetryWindow(since, new Date('2025-06-11T09:00:00Z'))).toBe(false);
  });
});

describe('availability of a local day', () => {
  const input: VenueRecords = {
    venue,
    records: [
      { date: '2025-03-30', partySize: 2, duration: 5400, slots: [
        { startSec: sec('2025-03-30T00:00:00Z'), totalSpots: 4, openSpots: 3 },
        { startSec: sec('2025-03-30T22:45:00Z'), totalSpots: 4, openSpots: 5 },
        { startSec: sec('2025-03-30T23:00:00Z'), totalSpots: 4, openSpots: 4 },
      ] },
      { date: '2025-03-30', partySize: 7, duration: 5400, slots: [{ startSec: sec('2025-03-30T12:00:00Z'), totalSpots: 1, openSpots: 1 }] },
    ],
  };

  it('[CHN-35] one entry per party size the feed offers, each the whole local day (23 hours on a spring-forward day), empty when no slot is left', () => {
    const [entries] = [...dayEntries(input, 'Europe/London', ['2025-03-30']).values()];
    expect(entries!.map((e) => e.partySize)).toEqual([1, 2, 3]);
    for (const e of entries!) {
      expect(e.startTimeRestrict).toEqual(new Date('2025-03-30T00:00:00Z'));
      expect(e.endTimeRestrict).toEqual(new Date('2025-03-30T23:00:00Z'));
    }
    expect(entries![0]!.slots).toEqual([]);
    // The next day's 23:00Z slot is outside the window; spots open never above spots total.
    expect(entries![1]!.slots).toEqual([
      { startTime: new Date('2025-03-30T00:00:00Z'), durationSec: 5400, spotsTotal: 4, spotsOpen: 3 },
      { startTime: new Date('2025-03-30T22:45:00Z'), durationSec: 5400, spotsTotal: 4, spotsOpen: 4 },
    ]);
  });

  it('[CHN-35] a day is sent again only when its entries changed; a moved booking touches the day it left and the day it went to', () => {
    const a = dayEntries(input, 'Europe/London', ['2025-03-30']).get('2025-03-30')!;
    const b = dayEntries({ ...input, records: [{ ...input.records[0]!, slots: input.records[0]!.slots.slice(1) }] }, 'Europe/London', ['2025-03-30']).get('2025-03-30')!;
    expect(dayHash(a)).toBe(dayHash(dayEntries(input, 'Europe/London', ['2025-03-30']).get('2025-03-30')!));
    expect(dayHash(a)).not.toBe(dayHash(b));
    expect(daysTouched('Europe/London', [new Date('2025-06-10T23:30:00Z'), new Date('2025-06-11T18:00:00Z')])).toEqual(['2025-06-11']);
    expect(daysTouched('Europe/London', [new Date('2025-06-10T22:30:00Z'), new Date('2025-06-11T18:00:00Z'), null])).toEqual(['2025-06-10', '2025-06-11']);
  });
});

describe('the service-account key file', () => {
  it('[CHN-32] is read for client_email, private_key (RSA) and token_uri; what is wrong is named, never echoed', () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(readServiceAccount(JSON.stringify({ client_email: 'a@b.iam.gserviceaccount.com', private_key: pem, token_uri: 'https://oauth2.googleapis.com/token' })))
      .toEqual({ clientEmail: 'a@b.iam.gserviceaccount.com', privateKey: pem, tokenUri: 'https://oauth2.googleapis.com/token' });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const problems = readServiceAccount(JSON.stringify({ client_email: 'nope', private_key: ec, token_uri: 'http://plain' }));
    expect(problems).toEqual(['client_email is missing or not an email address', 'token_uri is missing or not an https URL', 'private_key is not an RSA private key in PEM (RS256)']);
    expect(JSON.stringify(problems)).not.toContain('PRIVATE KEY');
    expect(readServiceAccount('not json')).toEqual(['the service-account file is not JSON (the key file Google issues)']);
  });
});
