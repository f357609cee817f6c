import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCliBundle } from '../cli-bundle.ts';

// Which code is "the previous release" for the rolling-upgrade test (src/db/README.md, "Which
// release the test rolls from"), and that code checked out and bundled so its real `serve` runs.

/** What a release must contain to restart on a database a newer release migrated (src/db/migrate.ts). */
const TOLERANCE_MARK = 'appliedByNewerRelease';
const DEEPEN = 'The rolling-upgrade test needs the repository\'s history: run `git fetch --unshallow` (CI: checkout with fetch-depth: 0), or name the release with ROLLING_FROM=<ref> after fetching it.';

export interface PreviousRelease {
  commit: string;
  /** Why this commit was chosen, for the test's log. */
  why: string;
}

function git(root: string, ...args: string[]): string {
  return execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function tryGit(root: string, ...args: string[]): string | null {
  try {
    return git(root, ...args);
  } catch {
    return null;
  }
}

const tolerates = (root: string, commit: string) => (tryGit(root, 'show', `${commit}:src/db/migrate.ts`) ?? '').includes(TOLERANCE_MARK);

/**
 * ROLLING_FROM when set; otherwise the first parent of the newest first-parent commit that changed
 * src/db/migrations (the code that ran on the schema before HEAD's migrations), when it tolerates a
 * newer schema; otherwise HEAD~1 (the same schema as HEAD: the swap of two builds is still tested).
 */
export function previousRelease(root: string, env: NodeJS.ProcessEnv = process.env): PreviousRelease {
  const named = env.ROLLING_FROM;
  if (named) {
    const commit = tryGit(root, 'rev-parse', '--verify', '--quiet', `${named}^{commit}`);
    if (!commit) throw new Error(`ROLLING_FROM=${named} is not a commit of this repository. ${DEEPEN}`);
    if (!tolerates(root, commit)) throw new Error(`ROLLING_FROM=${named} (${commit}) predates the migration tolerance (src/db/migrate.ts): it cannot restart on a newer schema.`);
    return { commit, why: `ROLLING_FROM=${named}` };
  }
  if (git(root, 'rev-parse', '--is-shallow-repository') === 'true') throw new Error(`This clone is shallow. ${DEEPEN}`);
  const lastSchemaChange = git(root, 'log', '--first-parent', '--format=%H', '-1', 'HEAD', '--', 'src/db/migrations');
  const before = tryGit(root, 'rev-parse', '--verify', '--quiet', `${lastSchemaChange}^1`);
  if (before && tolerates(root, before)) {
    return { commit: before, why: `the code before ${lastSchemaChange.slice(0, 10)}, the last commit that changed src/db/migrations` };
  }
  const parent = tryGit(root, 'rev-parse', '--verify', '--quiet', 'HEAD~1');
  if (!parent) throw new Error(`HEAD has no parent. ${DEEPEN}`);
  if (!tolerates(root, parent)) throw new Error(`HEAD~1 (${parent}) predates the migration tolerance (src/db/migrate.ts) and so does the code before the last schema change: set ROLLING_FROM.`);
  return { commit: parent, why: `HEAD~1: the last schema change (${lastSchemaChange.slice(0, 10)}) predates the migration tolerance, so the previous commit, on HEAD's schema` };
}

/**
 * The release's tree extracted from git into a temporary directory, the project's node_modules linked
 * into it, and its `tableside` command bundled (test/cli-bundle.ts) under the project's
 * node_modules/.cache so its dependencies resolve. Returns the bundle's entry file.
 */
export async function buildRelease(root: string, commit: string, cacheName: string): Promise<{ dir: string; entry: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'tableside-release-'));
  const outdir = join(root, 'node_modules', '.cache', 'tableside-test', cacheName);
  const remove = () => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(outdir, { recursive: true, force: true });
  };
  try {
    execSync(`git -C "${root}" archive ${commit} | tar -x -C "${dir}"`, { stdio: ['ignore', 'ignore', 'pipe'] });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    return { dir, entry: await buildCliBundle(dir, outdir), remove };
  } catch (err) {
    remove();
    throw err;
  }
}
