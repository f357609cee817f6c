import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeJsonAtomically } from '../../pos-simulator/src/json-file.ts';

// The sandbox's simulators keep their ports across restarts (issue 30): a partner saves the POS
// simulator's and the reference RMS's URLs from sandbox.json, and a restart must not make them stale.
// The ports are the ones the previous start wrote to sandbox.json (the data directory); a port another
// process took since is given up for a new one, which sandbox.json then records.

/** Where the sandbox's credentials and URLs are written (here, the lowest file of the folder, so the simulators' starters can read it). */
export const sandboxFile = (dataDir: string) => join(dataDir, 'sandbox.json');

/**
 * Writes sandbox.json (readable by its owner only): a new file renamed over the old, and nothing when
 * it already holds that text. A start writes it four times as it goes (the partner, the RMS, the
 * channels, Google); rewritten in place, each truncation waited for the disk to finish writing the
 * previous version (ext4), up to 75 ms of a restart's main thread in a profile under load (issue 28).
 * Renamed into place, a script reading the file never sees half of it either.
 */
export function writeSandboxJson(file: string, value: unknown): void {
  writeJsonAtomically(file, value, 0o600);
}

export type SandboxSimulatorName = 'posSimulator' | 'rms' | 'google';

/** The port sandbox.json recorded for a simulator; 0 (any free port) when there is none. */
export function rememberedPort(sandboxFile: string, name: SandboxSimulatorName): number {
  try {
    if (!existsSync(sandboxFile)) return 0;
    const previous = JSON.parse(readFileSync(sandboxFile, 'utf8')) as { posSimulator?: { baseUrl?: string } | null; rmsBaseUrl?: string; googleApi?: { baseUrl?: string } };
    const url = name === 'posSimulator' ? previous.posSimulator?.baseUrl : name === 'rms' ? previous.rmsBaseUrl : previous.googleApi?.baseUrl;
    return url ? Number(new URL(url).port) || 0 : 0;
  } catch {
    return 0;
  }
}

/** Starts on the remembered port, or on any free port when that one is taken. */
export async function startOnRememberedPort<T>(port: number, start: (port: number) => Promise<T>): Promise<T> {
  if (port === 0) return start(0);
  try {
    return await start(port);
  } catch (err) {
    if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
    return start(0);
  }
}
