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
