import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { longFunctions, MAX_OWN_LINES, measureFunctions } from './function-length.ts';
import { repositoryGraph, ROOT } from './layout.ts';

// No function over 80 lines of its own (function-length.ts says how they are counted and which
// route plugins are exempt), checked on the repository and shown on made-up sources, so a measure
// that silently stopped counting would fail here.

/** `n` lines of statements, indented by `indent`. */
const statements = (n: number, indent = '  ') => Array.from({ length: n }, (_, i) => `${indent}total += ${i};`);
/** A function declaration spanning `lines` lines. */
const fn = (name: string, lines: number) => [`function ${name}() {`, '  let total = 0;', ...statements(lines - 3), '}'].join('\n');
/** A route registration of `lines` lines, its handler a one-line arrow. */
const route = (i: number, lines: number) => [
  `  app.get('/v1/things/${i}', {`,
  `    schema: {`,
  ...Array.from({ length: lines - 4 }, (_, j) => `      field${j}: 'description of the route ${i}, part ${j}',`),
  '    },',
  `  }, async () => service.thing(${i}));`,
];
/** A route plugin of `routes` registrations, each `lines` lines, and optionally other statements first. */
const plugin = (routes: number, lines: number, before: string[] = []) =>
  [
    'export const thingsRoutes = async (app, { service }) => {',
    ...before,
    ...Array.from({ length: routes }, (_, i) => route(i, lines)).flat(),
    '};',
  ].join('\n');

describe('function length (issue 25)', () => {
  it(`no function over ${MAX_OWN_LINES} lines of its own under src/ and the simulators (pos-simulator/, rms-simulator/, maps-booking-simulator/); a route plugin that only lists routes aside`, () => {
    const { files } = repositoryGraph(ROOT);
    expect(files.filter((f) => f.startsWith('pos-simulator/')).length).toBeGreaterThan(5);
    expect(files.filter((f) => f.startsWith('rms-simulator/')).length).toBeGreaterThan(5);
    expect(files.filter((f) => f.startsWith('maps-booking-simulator/')).length).toBeGreaterThan(5);
    const long = files.flatMap((file) =>
      longFunctions(file, readFileSync(join(ROOT, file), 'utf8')).map((f) => `${file}:${f.line} ${f.name} (${f.ownLines} lines)`),
    );
    expect(long).toEqual([]);
  });

  it('a 90-line function fails; an 80-line one passes', () => {
    expect(measureFunctions('src/x/x.service.ts', fn('long', 90))).toEqual([{ name: 'long', line: 1, ownLines: 90, routeList: false }]);
    expect(longFunctions('src/x/x.service.ts', fn('long', 90)).map((f) => f.name)).toEqual(['long']);
    expect(longFunctions('src/x/x.service.ts', fn('fits', 80))).toEqual([]);
  });

  it('a 60-line function with a 50-line inner arrow passes: the arrow counts for itself, not for the function that declares it', () => {
    const source = [
      'export function outer() {',
      '  let total = 0;',
      ...statements(28),
      '  const inner = () => {',
      '    let total = 0;',
      ...statements(47, '    '),
      '  };',
      ...statements(29),
      '}',
    ].join('\n');
    expect(source.split('\n')).toHaveLength(110);
    expect(measureFunctions('src/x/x.service.ts', source).map(({ name, ownLines }) => ({ name, ownLines }))).toEqual([
      { name: 'outer', ownLines: 60 },
      { name: 'inner', ownLines: 50 },
    ]);
    expect(longFunctions('src/x/x.service.ts', source)).toEqual([]);
  });

  it('counts methods, constructors, accessors and function expressions too', () => {
    const body = statements(85, '    ').join('\n');
    const source = [
      'class C {',
      `  constructor() {\n    let total = 0;\n${body}\n  }`,
      `  method() {\n    let total = 0;\n${body}\n  }`,
      `  get value() {\n    let total = 0;\n${body}\n    return total;\n  }`,
      '}',
      `const expression = function () {\n    let total = 0;\n${body}\n};`,
    ].join('\n');
    expect(longFunctions('src/x/x.service.ts', source).map((f) => f.name)).toEqual(['constructor', 'method', 'value', 'expression']);
  });

  it('an 85-line route plugin that only lists routes passes; not in another file, nor with any other statement', () => {
    const routes = plugin(14, 7);
    const [measured] = measureFunctions('src/x/things.routes.ts', routes);
    expect(measured).toMatchObject({ name: 'thingsRoutes', routeList: true });
    expect(measured.ownLines).toBeGreaterThanOrEqual(85);
    expect(longFunctions('src/x/things.routes.ts', routes)).toEqual([]);

    expect(longFunctions('src/x/things.service.ts', routes).map((f) => f.name)).toEqual(['thingsRoutes']);
    const withSetup = plugin(14, 7, ["  const errors = errorResponses('platform', [401, 403]);"]);
    expect(longFunctions('src/x/things.routes.ts', withSetup).map((f) => f.name)).toEqual(['thingsRoutes']);
    const onAnotherObject = routes.replaceAll('  app.get(', '  other.get(');
    expect(longFunctions('src/x/things.routes.ts', onAnotherObject).map((f) => f.name)).toEqual(['thingsRoutes']);
  });
});
