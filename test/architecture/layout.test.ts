import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLayout, edgesOf, featuresOf, importCycles, importsOf, repositoryGraph, ROOT, type Edge } from './layout.ts';

// The layout of DESIGN 2, checked on the repository's real import graph, and shown to catch each
// kind of break on made-up graphs (so a rule that silently stopped matching would fail here).

const FILES = [
  'src/main.ts', 'src/config.ts',
  'src/app/services.ts', 'src/app/routes.ts',
  'src/server/platform.ts', 'src/lib/money.ts', 'src/db/db.ts', 'src/db/outbox.ts',
  'src/auth/auth.service.ts', 'src/pos/pos-client.ts', 'src/pos-mirror/connections.service.ts', 'src/pos-mirror/connections.repository.ts',
  'src/content/venues.service.ts', 'src/content/venues.routes.ts',
  'src/pat/payments.service.ts', 'src/pat/payments.repository.ts', 'src/pat/payments.routes.ts',
  'src/analytics/orders.service.ts', 'src/onboarding/onboarding.service.ts',
];
const edge = (from: string, to: string): Edge => ({ from, to });
const rulesOf = (edges: Edge[], files = FILES) => checkLayout(edges, files).map((v) => v.rule);

describe('the dependency rule (DESIGN 2)', () => {
  it('holds on the repository: every import of every .ts file of src/ and the simulators', () => {
    const { files, edges } = repositoryGraph(ROOT);
    expect(files.length).toBeGreaterThan(100);
    expect(edges.length).toBeGreaterThan(300);
    // The graph is the real one: it has the composition root's imports of the features.
    expect(edges).toContainEqual(edge('src/app/routes.ts', 'src/pat/payments.routes.ts'));
    expect(featuresOf(files)).toEqual(expect.arrayContaining(['analytics', 'content', 'onboarding', 'operator', 'pat', 'sandbox']));
    expect(checkLayout(edges, files)).toEqual([]);
  });

  it('a compliant made-up graph passes', () => {
    expect(
      rulesOf([
        edge('src/app/services.ts', 'src/pat/payments.service.ts'),
        edge('src/app/routes.ts', 'src/content/venues.routes.ts'),
        edge('src/pat/payments.service.ts', 'src/pos-mirror/connections.service.ts'),
        edge('src/pat/payments.service.ts', 'src/db/outbox.ts'),
        edge('src/pat/payments.service.ts', 'src/pat/payments.repository.ts'),
        edge('src/onboarding/onboarding.service.ts', 'src/pos-mirror/connections.service.ts'),
        edge('src/server/platform.ts', 'src/db/db.ts'),
        edge('src/db/outbox.ts', 'src/lib/money.ts'),
        edge('src/auth/auth.service.ts', 'src/server/platform.ts'),
        edge('src/main.ts', 'src/app/services.ts'),
        edge('src/sandbox/simulator.ts', 'pos-simulator/src/index.ts'),
      ]),
    ).toEqual([]);
  });

  it.each([
    ['server/ importing a feature', edge('src/server/platform.ts', 'src/pat/payments.service.ts'), 'platform-knows-no-feature'],
    ['server/ importing the POS client', edge('src/server/errors.ts', 'src/pos/pos-client.ts'), 'platform-knows-no-feature'],
    ['lib/ importing db/', edge('src/lib/money.ts', 'src/db/db.ts'), 'platform-knows-no-feature'],
    ['db/ importing a feature', edge('src/db/outbox.ts', 'src/analytics/orders.service.ts'), 'platform-knows-no-feature'],
    ['pos-mirror/ importing pat/', edge('src/pos-mirror/connections.service.ts', 'src/pat/venue-context.ts'), 'shared-knows-no-feature'],
    ['content/ importing pat/', edge('src/content/venues.service.ts', 'src/pat/payments.service.ts'), 'content-stands-alone'],
    ['content/ importing pos-mirror/', edge('src/content/venues.service.ts', 'src/pos-mirror/connections.service.ts'), 'content-stands-alone'],
    ['content/ importing analytics/', edge('src/content/venues.service.ts', 'src/analytics/orders.service.ts'), 'content-stands-alone'],
    ['a feature importing another one’s repository', edge('src/onboarding/onboarding.service.ts', 'src/pat/payments.repository.ts'), 'no-foreign-repository'],
    ['a feature importing pos-mirror’s repository', edge('src/pat/payments.service.ts', 'src/pos-mirror/connections.repository.ts'), 'no-foreign-repository'],
    ['a feature mounting another one’s routes', edge('src/onboarding/onboarding.service.ts', 'src/pat/payments.routes.ts'), 'routes-mounted-by-app'],
    ['a feature importing the composition root', edge('src/pat/payments.service.ts', 'src/app/services.ts'), 'composition-is-a-sink'],
    ['the POS simulator importing src/', edge('pos-simulator/src/server.ts', 'src/lib/money.ts'), 'simulators-standalone'],
    ['the RMS simulator importing src/', edge('rms-simulator/src/server.ts', 'src/db/db.ts'), 'simulators-standalone'],
    ['the Maps Booking API simulator importing src/', edge('maps-booking-simulator/src/api.fns.ts', 'src/channels/maps-booking-client.fns.ts'), 'simulators-standalone'],
    ['the conformance kit importing the POS client', edge('src/pos/check/run.ts', 'src/pos/pos-client.ts'), 'pos-check-standalone'],
  ] as const)('catches %s', (_what, bad, rule) => {
    const violations = checkLayout([bad], FILES);
    expect(violations.map((v) => v.rule)).toContain(rule);
    expect(violations.find((v) => v.rule === rule)!.detail).toContain(bad.from);
  });

  it('catches a module other than app/ that imports every feature', () => {
    const features = featuresOf(FILES);
    expect(features).toEqual(['analytics', 'content', 'onboarding', 'pat']);
    const all = (from: string) => features.filter((f) => !from.includes(`/${f}/`)).map((f) => edge(from, `src/${f}/x.service.ts`));
    expect(rulesOf(all('src/operator/commands.ts'), [...FILES, 'src/operator/commands.ts'])).toContain('only-app-imports-every-feature');
    expect(rulesOf(all('src/pat/payments.service.ts'))).toContain('only-app-imports-every-feature');
    expect(rulesOf(all('src/app/services.ts'))).toEqual([]);
    expect(rulesOf(all('src/main.ts'))).toEqual([]);
    // Some features, not all: allowed (a feature calls another's service).
    expect(rulesOf(all('src/pat/payments.service.ts').slice(1))).toEqual([]);
  });

  // A file outside the circle importing into it, and one the circle imports, are not part of the cycle.
  const circleOf = (files: string[]) => [
    ...files.map((from, i) => edge(from, files[(i + 1) % files.length])),
    edge('src/main.ts', files[0]),
    edge(files.at(-1)!, files.at(-1)!.replace(/[^/]+$/, 'leaf.ts')),
  ];

  it.each([
    ['two files that import each other', ['src/pat/payments.fns.ts', 'src/pat/payments.repository.ts']],
    ['three files in a circle', ['src/pos-mirror/connections.service.ts', 'src/pos-mirror/sync.service.ts', 'src/pos-mirror/orders.service.ts']],
    ['a simulator’s files in a circle', ['rms-simulator/src/server.ts', 'rms-simulator/src/control.routes.ts']],
    ['a file that imports itself', ['src/lib/money.ts']],
  ])('catches an import cycle: %s', (_what, circle) => {
    const edges = circleOf(circle);
    expect(importCycles(edges)).toEqual([[...circle].sort()]);
    const violations = checkLayout(edges, FILES).filter((v) => v.rule === 'no-import-cycle');
    expect(violations).toHaveLength(1);
    for (const file of circle) expect(violations[0].detail).toContain(file);
    expect(violations[0].detail).not.toContain('src/main.ts');
  });

  it('reports each cycle on its own, with its files, when one cycle imports another', () => {
    const two = ['src/pat/payments.fns.ts', 'src/pat/payments.repository.ts'];
    const three = ['src/pos-mirror/connections.service.ts', 'src/pos-mirror/sync.service.ts', 'src/pos-mirror/orders.service.ts'];
    const edges = [...circleOf(two), ...circleOf(three), edge(two[0], three[0])];
    expect(importCycles(edges)).toEqual([[...two].sort(), [...three].sort()]);
    expect(checkLayout(edges, FILES).filter((v) => v.rule === 'no-import-cycle').map((v) => v.detail)).toEqual([
      expect.stringMatching(/^src\/pat\/payments\.fns\.ts, src\/pat\/payments\.repository\.ts import each other/),
      expect.stringMatching(/^src\/pos-mirror\/connections\.service\.ts, src\/pos-mirror\/orders\.service\.ts, src\/pos-mirror\/sync\.service\.ts import each other/),
    ]);
  });

  it('counts a type-only import as an edge of a cycle', () => {
    const edges = [
      ...edgesOf('src/pat/payments.fns.ts', "import type { PaymentRow } from './payments.repository.ts';"),
      ...edgesOf('src/pat/payments.repository.ts', "import { paymentView } from './payments.fns.ts';"),
    ];
    expect(importCycles(edges)).toEqual([['src/pat/payments.fns.ts', 'src/pat/payments.repository.ts']]);
  });

  it('a chain or a diamond of imports is no cycle', () => {
    const diamond = [
      edge('src/pat/payments.service.ts', 'src/pat/payments.outcomes.ts'),
      edge('src/pat/payments.service.ts', 'src/pat/payments.jobs.ts'),
      edge('src/pat/payments.outcomes.ts', 'src/pat/payments.jobs.ts'),
      edge('src/pat/payments.jobs.ts', 'src/db/jobs.ts'),
      edge('src/pat/payments.outcomes.ts', 'src/pat/payments.fns.ts'),
      edge('src/pat/payments.repository.ts', 'src/pat/payments.fns.ts'),
    ];
    expect(importCycles(diamond)).toEqual([]);
  });

  it('reads every form of import: static, type-only, export-from, side effect and dynamic import()', () => {
    const source = [
      "import a from './a.ts';",
      "import type { B } from '../b.ts';",
      "export * from './c.ts';",
      "export { d } from './d.ts';",
      "const e = await import('./e.ts');",
      "import './f.ts';",
      "// import x from './in-a-comment.ts';",
      'const s = "import y from \'./in-a-string.ts\'";',
    ].join('\n');
    expect(importsOf(source)).toEqual(['./a.ts', '../b.ts', './c.ts', './d.ts', './e.ts', './f.ts']);
  });
});

describe('file size', () => {
  it('no file in src/ is over 400 lines: split by route group or role before that', () => {
    const { files } = repositoryGraph(ROOT);
    const long = files
      .filter((f) => f.startsWith('src/'))
      .map((f) => ({ file: f, lines: readFileSync(join(ROOT, f), 'utf8').split('\n').length }))
      .filter((f) => f.lines > 400);
    expect(long).toEqual([]);
  });
});

describe('documentation', () => {
  it('every folder of src/ (and src/, test/, src/pos/check/) has a README saying what lives there and what it may import', () => {
    const src = join(ROOT, 'src');
    const folders = readdirSync(src).filter((d) => statSync(join(src, d)).isDirectory());
    const dirs = ['src', 'test', 'src/pos/check', ...folders.map((d) => `src/${d}`)];
    const missing = dirs.filter((d) => !existsSync(join(ROOT, d, 'README.md')));
    expect(missing).toEqual([]);
    for (const d of dirs.filter((x) => x.startsWith('src/') && x !== 'src/pos/check')) {
      expect(readFileSync(join(ROOT, d, 'README.md'), 'utf8'), d).toMatch(/may import/i);
    }
  });
});
