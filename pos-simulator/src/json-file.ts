import { readFileSync, renameSync, writeFileSync } from 'node:fs';

// The simulators' state files and the sandbox's sandbox.json, written whole or not at all; node:fs
// alone, so the CLI's start can load it without the rest of the simulator.

/**
 * Temp file + rename: a crash mid-write leaves the previous complete file (shared with the RMS
 * simulator). A file that already holds the same text is left as it is: a sandbox restart saves the
 * state it has just loaded, and renaming over a file waits for the new one's data to be written out
 * (ext4), up to 66 ms of a restart's main thread in a profile under load (issue 28). The sandbox
 * writes its sandbox.json with it too (`mode` 0600: it holds credentials).
 */
export function writeJsonAtomically(file: string, value: unknown, mode?: number): void {
  const text = JSON.stringify(value, null, 2) + '\n';
  if (holds(file, text)) return;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, mode === undefined ? undefined : { mode });
  renameSync(tmp, file);
}

function holds(file: string, text: string): boolean {
  try {
    return readFileSync(file, 'utf8') === text;
  } catch {
    return false;
  }
}

/**
 * A simulator's state file, written at every change, or once for a batch of changes (`once`): the
 * demo's seeding is many changes, each of which wrote the whole file and renamed it into place
 * (issue 28: 0.19 s of a fresh sandbox start's main thread in a profile under load). Nothing else
 * may change the state during a batch: the simulators run one before they listen.
 */
export class StateFile {
  /** The batch running, and whether a change in it asked for a write. */
  private batch: { changed: boolean } | null = null;

  /** `file` undefined: an in-memory simulator, nothing written. `snapshot` gives what to write. */
  constructor(
    private readonly file: string | undefined,
    private readonly snapshot: () => unknown,
  ) {}

  /** Runs `change` with the writes it asks for made once, at its end. */
  async once(change: () => Promise<void>): Promise<void> {
    const batch = (this.batch = { changed: false });
    try {
      await change();
    } finally {
      this.batch = null;
      if (batch.changed) this.write();
    }
  }

  write(): void {
    if (this.batch) {
      this.batch.changed = true;
      return;
    }
    if (this.file) writeJsonAtomically(this.file, this.snapshot());
  }
}
