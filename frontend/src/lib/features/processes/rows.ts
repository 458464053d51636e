// The Processes panel's rows: every managed process (dev servers, terminals)
// and every orphan, with the ports its OS subtree listens on.

import type { DevServer, ProcessInfo, ProcessKind, TerminalSession } from '../../bridge';
import { isRunning, newestFirst } from './status';

/** One row of the Processes panel. */
export interface ProcessRow {
  kind: ProcessKind;
  id: string;
  /** The command line (a terminal's shell). */
  command: string;
  /** A dev server's display name ('' when it has none, or it is the command). */
  name: string;
  cwd: string;
  pid: number;
  ports: number[];
  status: string;
  /** Unix milliseconds; null when unknown (orphans). */
  startedAt: number | null;
  running: boolean;
}

const uniqueSorted = (ports: Iterable<number>) => [...new Set(ports)].filter((p) => p > 0).sort((a, b) => a - b);

/**
 * The rows: dev servers newest first, then terminals, then orphans. A row
 * that no longer runs has no pid and no ports (they may be another
 * process's by now).
 */
export function processRows(servers: readonly DevServer[], terminals: readonly TerminalSession[], tree: readonly ProcessInfo[]): ProcessRow[] {
  const info = new Map(tree.map((p) => [p.id, p]));
  const rows: ProcessRow[] = [];
  for (const s of newestFirst(servers)) {
    const running = isRunning(s.status);
    const ports = running ? uniqueSorted([...(typeof s.port === 'number' ? [s.port] : []), ...(info.get(s.id)?.ports ?? [])]) : [];
    const command = [s.command, ...(s.args ?? [])].join(' ');
    rows.push({
      kind: 'dev-server', id: s.id, command, name: s.name && s.name !== command ? s.name : '', cwd: s.cwd, pid: running ? s.pid : 0, ports,
      status: s.status, startedAt: s.startedAt || null, running,
    });
  }
  for (const t of [...terminals].sort((a, b) => b.createdAt - a.createdAt)) {
    const running = isRunning(t.status);
    rows.push({
      kind: 'terminal', id: t.id, command: t.shell, name: '', cwd: t.cwd, pid: running ? t.pid : 0,
      ports: running ? uniqueSorted(info.get(t.id)?.ports ?? []) : [], status: t.status, startedAt: t.createdAt || null, running,
    });
  }
  for (const p of tree) {
    if (p.kind !== 'orphan') continue;
    rows.push({
      kind: 'orphan', id: p.id, command: p.command || p.tree?.command || `pid ${p.pid}`, name: '', cwd: p.cwd, pid: p.pid,
      ports: uniqueSorted(p.ports ?? []), status: p.status || 'running', startedAt: null, running: true,
    });
  }
  return rows;
}
