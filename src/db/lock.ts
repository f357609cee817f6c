import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

// PGlite has no guard against two processes opening one data directory, and two writers corrupt
// it (DESIGN 3). The owner holds a lock file with its PID; a second opener is refused with a clear
// message. A lock left by a dead process (kill -9) is taken over.

export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `The data directory ${dir} is in use by process ${pid}. Stop that process first, ` +
        `or point TABLESIDE_DATA at another directory.`,
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DirLock {
  readonly file: string;
  release(): void;
}

const lockFile = (dir: string) => join(dir, 'tableside.pid');

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The PID owning the directory, or null when nobody (alive) does. */
export function lockOwner(dir: string): number | null {
  try {
    const pid = Number(readFileSync(lockFile(dir), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

export function acquireDirLock(dir: string): DirLock {
  mkdirSync(dir, { recursive: true });
  const file = lockFile(dir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600); // atomic: fails when the file exists
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        file,
        release() {
          if (released) return;
          released = true;
          try {
            if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file);
          } catch {
            // already gone
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = lockOwner(dir);
      if (owner !== null) throw new DataDirLockedError(dir, owner);
      // Stale lock: move it aside atomically so two processes cannot both remove and take it.
      try {
        renameSync(file, `${file}.stale-${process.pid}`);
        rmSync(`${file}.stale-${process.pid}`, { force: true });
      } catch {
        // someone else moved it first; try again
      }
    }
  }
  throw new Error(`Could not take the lock on ${dir}`);
}
