import { readFileSync } from 'node:fs';

// Summarizes CONTRACT_REPORT files (test/helpers/contract.ts): violations grouped by operation,
// status, kind and problem, with counts, most frequent first.
//   CONTRACT_REPORT=/tmp/contract.jsonl npx vitest run test/pat
//   node --import tsx test/helpers/contract-summary.ts /tmp/contract.jsonl [more.jsonl …]

interface Line {
  operationId: string;
  method: string;
  path: string;
  status: number;
  kind: string;
  problem: string;
  test?: string;
}

/** The problem without what varies from one response to the next (a header's value). */
export function problemKey(line: Pick<Line, 'kind' | 'problem'>): string {
  return line.kind === 'header-value' ? line.problem.replace(/^(header [^:]+): ".*?": /, '$1: ') : line.problem;
}

export function summarize(lines: Line[]): string {
  const groups = new Map<string, { count: number; tests: Set<string> }>();
  for (const line of lines) {
    const key = `${line.operationId} (${line.method} ${line.path}) ${line.status} [${line.kind}] ${problemKey(line)}`;
    const group = groups.get(key) ?? { count: 0, tests: new Set<string>() };
    group.count++;
    if (line.test) group.tests.add(line.test);
    groups.set(key, group);
  }
  const rows = [...groups].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]));
  const byKind = new Map<string, number>();
  for (const line of lines) byKind.set(line.kind, (byKind.get(line.kind) ?? 0) + 1);
  return [
    `${lines.length} violations in ${groups.size} groups (${[...byKind].map(([k, n]) => `${k}: ${n}`).join(', ')})`,
    ...rows.map(([key, g]) => `${String(g.count).padStart(6)}  ${key}${g.tests.size ? `  (${g.tests.size} tests)` : ''}`),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const lines = process.argv
    .slice(2)
    .flatMap((file) => readFileSync(file, 'utf8').split('\n'))
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);
  console.log(summarize(lines));
}
