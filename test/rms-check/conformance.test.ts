// rms-check against the reference RMS over real HTTPS: every rule passes on the healthy simulator
// (BKG-16), and each deliberately broken mode is caught by the rules it breaks and no others.
import { afterEach, describe, expect, it } from 'vitest';
import { BROKEN_MODES, startRmsSimulator, type BrokenMode, type RmsSimulator } from '../../rms-simulator/src/index.ts';
import { RULES, runRmsCheck, type RmsCheckReport } from '../../src/rms/check/index.ts';

let sim: RmsSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const byStatus = (report: RmsCheckReport, status: string) => report.rules.filter((r) => r.status === status).map((r) => r.id);

describe('healthy reference RMS', () => {
  it('[BKG-16] rms-check passes every rule against the reference RMS and leaves no booking open', async () => {
    sim = await startRmsSimulator({ seed: true });
    const report = await runRmsCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'rms-venue-1', ca: sim.ca, timezone: 'Europe/London' });
    expect(report.rules.filter((r) => r.status !== 'pass')).toEqual([]);
    expect(report.rules.map((r) => r.id)).toEqual(RULES.map((r) => r.id));
    expect(report.ok).toBe(true);
    const left = (await sim.control.bookings('rms-venue-1')).filter((b) => b.status !== 'canceled');
    expect(left).toEqual([]);
  });

  it('[BKG-16] without --timezone the slot-date rule still passes (neighbouring dates compared), in New York with a card token', async () => {
    sim = await startRmsSimulator({ seed: true });
    const report = await runRmsCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'rms-venue-3', ca: sim.ca, paymentToken: 'tok_visa' });
    expect(report.rules.filter((r) => r.status !== 'pass')).toEqual([]);
  });

  it('[BKG-16] a venue whose every slot asks a card fails availability-shape with the reason unless a payment token is given', async () => {
    sim = await startRmsSimulator({ seed: true });
    const report = await runRmsCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'rms-venue-3', ca: sim.ca });
    expect(byStatus(report, 'fail')).toEqual(['availability-shape']);
    expect(report.rules.find((r) => r.id === 'availability-shape')?.detail).toMatch(/--payment-token/);
  });
});

describe('broken modes', () => {
  it.each(Object.entries(BROKEN_MODES) as Array<[BrokenMode, readonly string[]]>)(
    '[BKG-16] broken mode %s fails exactly the rules %j; ok is false',
    async (mode, rules) => {
      sim = await startRmsSimulator({ seed: true, broken: mode });
      const report = await runRmsCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'rms-venue-1', ca: sim.ca });
      expect(report.ok).toBe(false);
      expect(byStatus(report, 'fail').sort()).toEqual([...rules].sort());
      for (const id of rules) expect(report.rules.find((r) => r.id === id)?.detail).not.toBe('');
    },
  );
});
