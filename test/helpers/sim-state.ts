import { readFileSync } from 'node:fs';

/**
 * A simulator's state file with what differs between two runs masked (the key, the clock, every
 * time): the POS and RMS simulators' demo seeded in-process is compared with one seeded over their
 * control APIs (test/pos-simulator/seed.test.ts, test/rms-simulator/seed.test.ts).
 */
export function simStateOf(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'), (key, value) =>
    key === 'apiKey' || key === 'clock' || (/At$/.test(key) && value !== null) ? '(masked)' : value);
}
