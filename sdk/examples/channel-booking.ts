import { readFileSync } from 'node:fs';
import { createTablesideClient, paginate, unwrap } from '@tableside/sdk';

// The sandbox's booking channel (sandbox.json → channels) books a table for two, three days ahead,
// at the first of its venues with a free slot that needs no deposit.
const sandbox = JSON.parse(readFileSync('.tableside/sandbox.json', 'utf8'));
const channel = sandbox.channels.find((c: { protocol: string }) => c.protocol === 'tableside');
const client = createTablesideClient({ baseUrl: sandbox.baseUrl, channelKey: channel.credentials.apiKey });

const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
for await (const venue of paginate(client, '/v1/bc/venues')) {
  const { slots } = unwrap(await client.GET('/v1/bc/venues/{venueId}/availability', { params: { path: { venueId: venue.id }, query: { date, partySize: 2 } } }));
  const slot = slots.find((s) => s.openSpots > 0 && !s.deposit && !s.requiresCc);
  if (!slot) continue;
  // The client adds an Idempotency-Key, so a retried create never books twice.
  const booking = unwrap(await client.POST('/v1/bc/bookings', {
    body: { venueId: venue.id, partySize: 2, start: slot.start, contact: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0001' } },
  }));
  console.log(`${venue.name}: booking ${booking.id} ${booking.status}, ${booking.partySize} guests at ${booking.start}`);
  break;
}
