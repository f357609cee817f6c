import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { validateFeedSet, type FeedRuleResult } from './google-feeds.fns.ts';

// `tableside feeds validate DIR` (DESIGN 8.4c): reads every .json file of a directory as one feed
// set and checks it. Needs no store, so it can check a feed set from anywhere.

export async function validateFeedDir(dir: string): Promise<{ ok: boolean; rules: FeedRuleResult[] }> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  const files: Array<{ name: string; document: unknown }> = [];
  const unreadable: string[] = [];
  for (const name of names) {
    try {
      files.push({ name, document: JSON.parse(await readFile(join(dir, name), 'utf8')) });
    } catch (err) {
      unreadable.push(`${name}: ${(err as Error).message}`);
    }
  }
  const result = validateFeedSet(files);
  if (unreadable.length === 0) return result;
  return { ok: false, rules: [{ id: 'FEED-JSON', title: 'every file is JSON', status: 'fail', detail: unreadable.join('; ') }, ...result.rules] };
}

export function printValidation(result: { ok: boolean; rules: FeedRuleResult[] }, json: boolean): string {
  if (json) return JSON.stringify(result);
  return [...result.rules.map((r) => `${r.status === 'pass' ? 'PASS' : 'FAIL'} ${r.id} ${r.title}${r.status === 'pass' ? '' : `: ${r.detail}`}`), result.ok ? 'feed set OK' : 'feed set INVALID'].join('\n');
}
