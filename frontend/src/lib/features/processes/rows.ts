// The Processes panel's rows: every managed process (dev servers, terminals)
// and every orphan, with the ports its OS subtree listens on.

import type { DevServer, ProcessInfo, ProcessKind, TerminalSession } from '../../bridge';
import { isRunning, newestFirst, serverLabel } from './status';

/** One row of the Processes panel. */
export interface ProcessRow {
  kind: ProcessKind;
  id: string;
  command: string;
  cwd: string;
  pid: number;
  ports: number[];
  status: string;
  /** Unix milliseconds; null when unknown (orphans). */
  startedAt: number | null;
  running: boolean;
}

const uniqueSorted = (ports: Iterable<number>) => [...new Set(ports)].filter((p) => p > 0).sort((a, b) => a - b);

/** The rows: dev servers newest first, then terminals, then orphans. */
export function processRows(servers: readonly DevServer[], terminals: readonly TerminalSession[], tree: readonly ProcessInfo[]): ProcessRow[] {
  const info = new Map(tree.map((p) => [p.id, p]));
  const rows: ProcessRow[] = [];
  for (const s of newestFirst(servers)) {
    const ports = uniqueSorted([...(typeof s.port === 'number' ? [s.port] : []), ...(info.get(s.id)?.ports ?? [])]);
    rows.push({
      kind: 'dev-server', id: s.id, command: serverLabel(s), cwd: s.cwd, pid: s.pid, ports, status: s.status,
      startedAt: s.startedAt || null, running: isRunning(s.status),
    });
  }
  for (const t of [...terminals].sort((a, b) => b.createdAt - a.createdAt)) {
    rows.push({
      kind: 'terminal', id: t.id, command: t.shell, cwd: t.cwd, pid: t.pid, ports: uniqueSorted(info.get(t.id)?.ports ?? []),
      status: t.status, startedAt: t.createdAt || null, running: isRunning(t.status),
    });
  }
  for (const p of tree) {
    if (p.kind !== 'orphan') continue;
    rows.push({
      kind: 'orphan', id: p.id, command: p.command || p.tree?.command || `pid ${p.pid}`, cwd: p.cwd, pid: p.pid,
      ports: uniqueSorted(p.ports ?? []), status: p.status || 'running', startedAt: null, running: true,
    });
  }
  return rows;
}
