import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import ts from 'typescript';

// The dependency rule of the code's layout (DESIGN 2), as a function of the import graph, so the
// test can run it on the repository and on made-up graphs that break it.
//
//   platform     lib/ (imports only lib/), db/ and config.ts (lib/), server/ (lib/, db/, config.ts):
//                they know no feature and no shared module
//   shared       auth/, pos/, pos-mirror/: the parts features build on; they import no feature
//   features     every other folder of src/ (content/, pat/, analytics/, onboarding/, operator/,
//                sandbox/, and those to come: rms/, channels/, webhooks/)
//   composition  app/ and main.ts: the only places that import every feature, mount routes, and
//                that nothing else imports
// and besides:
//   - no module imports another module's *.repository.ts (they call each other's services);
//   - content/ imports nothing of pat/, pos-mirror/ or analytics/;
//   - the simulators (pos-simulator/, rms-simulator/, maps-booking-simulator/) never import src/;
//   - the conformance kit (src/pos/check/) imports nothing outside its folder (a vendor reads it alone);
//   - no import cycle between files, however long, `import type` included: a cycle leaves no file
//     that can be read (or changed) before the others.

export interface Edge {
  /** Repository-relative path of the importing file, e.g. `src/pat/payments.service.ts`. */
  from: string;
  /** Repository-relative path of the imported file (relative specifiers only; packages are not edges). */
  to: string;
}

export interface Violation {
  rule: string;
  edge?: Edge;
  detail: string;
}

const PLATFORM_DEPS: Record<string, readonly string[]> = {
  lib: ['lib'],
  config: ['lib', 'config'],
  db: ['lib', 'db', 'config'],
  server: ['lib', 'db', 'config', 'server'],
};
const SHARED = ['auth', 'pos', 'pos-mirror'];
const COMPOSITION = ['app', 'main'];
const SIMULATORS = ['pos-simulator', 'rms-simulator', 'maps-booking-simulator'];

/** The module a file belongs to: `src/<folder>/…` is that folder, `src/main.ts` is `main`, a simulator's file is the simulator. */
export function moduleOf(path: string): string | null {
  const parts = path.split('/');
  if (SIMULATORS.includes(parts[0])) return parts[0];
  if (parts[0] !== 'src') return null;
  if (parts.length === 2) return parts[1].replace(/\.ts$/, '');
  return parts[1];
}

/** The feature modules: every module of src/ that is neither platform, shared nor composition. */
export function featuresOf(files: readonly string[]): string[] {
  const modules = new Set(files.map(moduleOf).filter((m): m is string => m !== null && !SIMULATORS.includes(m)));
  return [...modules].filter((m) => !(m in PLATFORM_DEPS) && !SHARED.includes(m) && !COMPOSITION.includes(m)).sort();
}

/** Checks the rule on an import graph; `files` lists every file of src/ (to know the features). */
export function checkLayout(edges: readonly Edge[], files: readonly string[]): Violation[] {
  const features = featuresOf([...files, ...edges.map((e) => e.from)]);
  const out: Violation[] = [];
  const importedFeatures = new Map<string, Set<string>>();

  for (const edge of edges) {
    const from = moduleOf(edge.from);
    const to = moduleOf(edge.to);
    if (from === null) continue;
    const flag = (rule: string, detail: string) => out.push({ rule, edge, detail: `${edge.from} imports ${edge.to}: ${detail}` });

    if (SIMULATORS.includes(from)) {
      if (edge.to.startsWith('src/')) flag('simulators-standalone', `${from}/ is its own app and never imports src/`);
      continue;
    }
    if (edge.from.startsWith('src/pos/check/') && !edge.to.startsWith('src/pos/check/')) {
      flag('pos-check-standalone', 'the conformance kit imports nothing outside src/pos/check/');
    }
    if (to === null || to === from || SIMULATORS.includes(to)) continue;

    if (from in PLATFORM_DEPS && !PLATFORM_DEPS[from].includes(to)) {
      flag('platform-knows-no-feature', `${from} may import only ${PLATFORM_DEPS[from].join(', ')}`);
    }
    if (SHARED.includes(from) && features.includes(to)) flag('shared-knows-no-feature', `${from}/ is shared by features and imports none of them`);
    if (to === 'app' && from !== 'main') flag('composition-is-a-sink', 'only main.ts imports the composition root');
    if (edge.to.endsWith('.repository.ts')) flag('no-foreign-repository', `${to}/'s repository is its own; call its service`);
    if (edge.to.endsWith('.routes.ts') && !COMPOSITION.includes(from)) flag('routes-mounted-by-app', 'routes are mounted by the composition root');
    if (from === 'content' && ['pat', 'pos-mirror', 'analytics'].includes(to)) flag('content-stands-alone', 'content/ imports nothing of pat/, pos-mirror/ or analytics/');
    if (!COMPOSITION.includes(from) && features.includes(to)) {
      let set = importedFeatures.get(from);
      if (!set) importedFeatures.set(from, (set = new Set()));
      set.add(to);
    }
  }

  // Only the composition root knows every feature.
  for (const [from, set] of importedFeatures) {
    const others = features.filter((f) => f !== from);
    if (others.length >= 2 && others.every((f) => set.has(f))) {
      out.push({ rule: 'only-app-imports-every-feature', detail: `${from} imports every feature (${others.join(', ')}); only app/ and main.ts may` });
    }
  }
  for (const cycle of importCycles(edges)) {
    const inside = edges.filter((e) => cycle.includes(e.from) && cycle.includes(e.to)).map((e) => `${e.from} -> ${e.to}`);
    out.push({ rule: 'no-import-cycle', detail: `${cycle.join(', ')} import each other in a circle (${inside.join(', ')})` });
  }
  return out;
}

/**
 * The import cycles of a graph: its strongly connected components (Tarjan) of more than one file,
 * or a file importing itself; each sorted, listed by their first file.
 */
export function importCycles(edges: readonly Edge[]): string[][] {
  const targets = new Map<string, string[]>();
  for (const { from, to } of edges) targets.set(from, [...(targets.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];

  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of targets.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return; // not the root of its component
    const component = stack.splice(stack.indexOf(file));
    for (const member of component) onStack.delete(member);
    if (component.length > 1 || targets.get(file)?.includes(file)) cycles.push(component.sort());
  };
  for (const file of [...targets.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The specifiers a TypeScript source imports: static imports, `export … from`, `import type`, dynamic `import()`. */
export function importsOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    return statSync(path).isDirectory() ? walk(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** The import edges of one file (repository-relative) from its source; packages are not edges. */
export function edgesOf(file: string, source: string): Edge[] {
  return importsOf(source)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => ({ from: file, to: posix.normalize(posix.join(posix.dirname(file), specifier)) }));
}

/** Every .ts file of src/ and the simulators (those that exist), repository-relative, with its import edges. */
export function repositoryGraph(root: string): { files: string[]; edges: Edge[] } {
  const toRepo = (abs: string) => relative(root, abs).split(sep).join('/');
  const files = ['src', ...SIMULATORS].flatMap((d) => walk(join(root, d))).map(toRepo).sort();
  const edges = files.flatMap((file) => edgesOf(file, readFileSync(join(root, file), 'utf8')));
  return { files, edges };
}

/** The repository root, from this file. */
export const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..');
