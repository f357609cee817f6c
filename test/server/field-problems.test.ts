import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestPartner } from '../helpers/app.ts';

// A 400 names the real problem of each field on every API family (issue 17, item 3): a nullable
// field holding a value of the right type but the wrong shape is told what is wrong with it, not
// "must be a string or null".

describe('field problems on every API family', () => {
  let app: TestApp;
  let rms: TestPartner;
  let pat: TestPartner;
  let channelKey: string;
  beforeAll(async () => {
    app = await startTestApp();
    rms = await app.newPartner(['rms']);
    pat = await app.newPartner(['pat']);
    const s = app.service.app.services as any;
    const channel = await s.channels.create({ name: 'Problems channel' });
    channelKey = (await s.channelAccess.issue(channel.id, 'tableside')).credentials.apiKey;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('[ERR-03] a bad e-mail is "not an e-mail" on the content API (a nullable field), pay-at-table and the channel API', async () => {
    const content = await app.http.post('/v1/rms/venues', { token: rms.apiKey, body: { name: 'Casa', email: 'not-an-email' } });
    expect(content.status).toBe(400);
    expect(content.body.error.details.email).toEqual(['must be an e-mail address']);

    const venue = await app.http.post('/v1/pat/venues', { token: pat.token, body: { name: 'Casa', email: 'not-an-email' } });
    expect(venue.status).toBe(400);
    expect(venue.body.error.details.email).toEqual(['must be an e-mail address']);

    const booking = await app.http.post('/v1/bc/bookings', {
      token: channelKey,
      headers: { 'idempotency-key': 'problems-1' },
      body: { venueId: '00000000-0000-7000-8000-000000000000', partySize: 2, start: '2030-01-01T20:00:00Z', contact: { firstName: 'A', lastName: 'B', email: 'not-an-email', phone: '+34600000000' } },
    });
    expect(booking.status).toBe(400);
    expect(booking.body.error.details['contact.email']).toEqual(['must be an e-mail address']);
  });

  it('[ERR-03] [DES-010] the e-mail fields state their accepted form as a pattern, and the validator accepts exactly what it matches', async () => {
    const doc = (await app.http.get('/openapi.json')).body;
    const schemas = JSON.stringify(doc);
    expect(schemas).not.toContain('"format":"email"');
    const venueEmail = doc.paths['/v1/pat/venues'].post.requestBody.content['application/json'].schema.properties.email;
    const pattern = new RegExp(venueEmail.pattern);
    const cases = ['0@com', 'a@b', 'ana.lopez+res@mail.example.co', 'x@localhost', "o'neil@example.ie", 'a..b@example.com', 'a@-x.com', 'name@example.com'];
    for (const email of cases) {
      const answer = await app.http.post('/v1/pat/venues', { token: pat.token, body: { name: 'Casa', email } });
      // Whatever else the body lacks, the e-mail is refused exactly when the document's pattern says so.
      expect(answer.body.error?.details?.email !== undefined, email).toBe(!pattern.test(email));
    }
  });

  it('[ERR-03] a nullable field of the wrong type is still told its accepted types; a too-long one its length', async () => {
    const wrongType = await app.http.post('/v1/rms/venues', { token: rms.apiKey, body: { name: 'Casa', email: 42 } });
    expect(wrongType.body.error.details.email).toEqual(['must be a string or null']);
    const tooLong = await app.http.post('/v1/rms/venues', { token: rms.apiKey, body: { name: 'Casa', email: `${'a'.repeat(250)}@example.com` } });
    expect(tooLong.body.error.details.email).toContain('must be at most 255 characters long');
  });
});
