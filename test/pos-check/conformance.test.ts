// The conformance kit against the reference simulator: all pass when healthy (DES-086), and each
// deliberately broken mode is caught by the rule that names it (DES-087).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BROKEN_MODES, startSimulator, type BrokenMode, type Simulator } from '../../pos-simulator/src/index.ts';
import { RULES, runPosCheck, type PosCheckReport } from '../../src/pos/check/index.ts';
import { PosHttp } from '../../src/pos/check/http.ts';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const byStatus = (report: PosCheckReport, status: string) => report.rules.filter((r) => r.status === status).map((r) => r.id);

describe('healthy simulator', () => {
  it('[DES-086] pos-check with --payments and --sku reports every rule as pass (immediate venue)', async () => {
    sim = await startSimulator({ seed: true });
    const report = await runPosCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'sim-venue-1', payments: true, sku: 'ESP', ca: sim.ca });
    expect(report.rules.filter((r) => r.status !== 'pass')).toEqual([]);
    expect(report.rules.map((r) => r.id)).toEqual(RULES.map((r) => r.id));
    expect(report.ok).toBe(true);
  });

  it('[DES-086] pos-check with --payments and --sku reports every rule as pass (deferred venue, payments confirmed by polling)', async () => {
    sim = await startSimulator({ seed: true });
    const report = await runPosCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'sim-venue-2', payments: true, sku: 'BURGER', ca: sim.ca });
    expect(report.rules.filter((r) => r.status !== 'pass')).toEqual([]);
    expect(report.rules.find((r) => r.id === 'payment-forward')?.detail).toMatch(/202 pending, confirmed/);
  });

  it('[DES-086] without --payments and --sku nothing fails; the payment rules and items-added are skipped with a reason', async () => {
    sim = await startSimulator({ seed: true });
    const report = await runPosCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'sim-venue-1', ca: sim.ca });
    expect(report.ok).toBe(true);
    expect(byStatus(report, 'skip').sort()).toEqual(['items-added', 'payment-forward', 'payment-idempotent', 'payment-status']);
    for (const r of report.rules.filter((x) => x.status === 'skip')) expect(r.detail).toMatch(/--payments|--sku/);
  });

  it('[DES-086] pos-check leaves none of its orders open: the venue\'s open orders are the same before and after a run (issue 30: two empty ones were left)', async () => {
    sim = await startSimulator({ seed: true });
    const pos = new PosHttp({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, ca: sim.ca });
    try {
      const openIds = async () => ((await pos.get('/venue/sim-venue-1/orders?status=open')).json as Array<{ id: string }>).map((o) => o.id).sort();
      const before = await openIds();
      expect(before.length).toBeGreaterThan(0); // the seeded demo orders, which the kit must not touch
      for (const payments of [false, true]) {
        const report = await runPosCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'sim-venue-1', payments, sku: 'ESP', ca: sim.ca });
        expect(report.ok).toBe(true);
        expect(report.rules.find((r) => r.id === 'cleanup')?.status).toBe('pass');
        expect(await openIds()).toEqual(before);
      }
    } finally {
      await pos.close();
    }
  });

  it('[POS-13] a POS that ignores items passes unknown-sku with a note; told --sku, items-added fails', async () => {
    sim = await startSimulator({ seed: true });
    await sim.control.putVenue('sim-venue-1', { itemsSupported: false });
    const plain = await runPosCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'sim-venue-1', ca: sim.ca });
    expect(plain.rules.find((r) => r.id === 'unknown-sku')).toMatchObject({ status: 'pass', detail: expect.stringMatching(/items are not supported/) });
    const withSku = await runPosCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'sim-venue-1', sku: 'ESP', ca: sim.ca });
    expect(byStatus(withSku, 'fail')).toEqual(['unknown-sku', 'items-added']);
  });
});

describe('broken simulator modes', () => {
  it.each(Object.entries(BROKEN_MODES) as Array<[BrokenMode, string]>)(
    '[DES-087] broken mode %s is caught by rule %s (and only by it); ok is false',
    async (mode, ruleId) => {
      sim = await startSimulator({ seed: true, broken: mode });
      const report = await runPosCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'sim-venue-1', payments: true, sku: 'ESP', ca: sim.ca });
      expect(report.ok).toBe(false);
      expect(byStatus(report, 'fail')).toEqual([ruleId]);
      expect(report.rules.find((r) => r.id === ruleId)?.detail).not.toBe('');
    },
  );

  it('[DES-087] a broken mode switched on through the control API is caught as well, and switching it off restores conformance', async () => {
    sim = await startSimulator({ seed: true });
    await sim.control.setBroken('drop-merged-tables');
    const broken = await runPosCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'sim-venue-1', ca: sim.ca });
    expect(byStatus(broken, 'fail')).toEqual(['merged-tables']);
    await sim.control.setBroken(null);
    expect((await runPosCheck({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'sim-venue-1', ca: sim.ca })).ok).toBe(true);
  });
});

describe('transport', () => {
  it('(spec 1) an untrusted certificate fails every rule with the TLS error; --insecure or NODE_EXTRA_CA_CERTS makes it trusted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pos-check-ca-'));
    const saved = { data: process.env.TABLESIDE_DATA, extra: process.env.NODE_EXTRA_CA_CERTS };
    try {
      process.env.TABLESIDE_DATA = dir; // no pos-sim certificate there
      delete process.env.NODE_EXTRA_CA_CERTS;
      sim = await startSimulator({ seed: true });
      const opts = { baseUrl: sim.baseUrl, apiKey: sim.apiKey, venue: 'sim-venue-1' };
      const untrusted = await runPosCheck(opts);
      expect(untrusted.ok).toBe(false);
      expect(untrusted.rules[0]).toMatchObject({ id: 'auth-required', status: 'fail', detail: expect.stringMatching(/certificate/i) });
      // The failure says what to pass (issue 30).
      expect(untrusted.rules[0]!.detail).toMatch(/pass --ca <its PEM file>, for the sandbox --ca \.tableside\/tls\.crt; or --insecure/);
      expect((await runPosCheck({ ...opts, insecure: true })).ok).toBe(true);
      writeFileSync(join(dir, 'ca.pem'), sim.ca);
      process.env.NODE_EXTRA_CA_CERTS = join(dir, 'ca.pem');
      expect((await runPosCheck(opts)).ok).toBe(true);
      await expect(runPosCheck({ ...opts, baseUrl: opts.baseUrl.replace('https:', 'http:') })).rejects.toThrow(/https/);
    } finally {
      if (saved.data === undefined) delete process.env.TABLESIDE_DATA;
      else process.env.TABLESIDE_DATA = saved.data;
      if (saved.extra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = saved.extra;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
