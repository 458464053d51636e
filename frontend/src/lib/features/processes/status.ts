// What the status bar and the panels say about dev servers and processes.

import type { DevServer, ProcessStatus } from '../../bridge';

/** Statuses of a dev server that still runs. */
export const isRunning = (status: string): boolean => status === 'running' || status === 'starting';

/** Dev servers newest first. */
export function newestFirst(servers: readonly DevServer[]): DevServer[] {
  return [...servers].sort((a, b) => b.startedAt - a.startedAt);
}

/** The status bar's summary: "2 running :3000 :5173" ('' when none runs). */
export function runningSummary(servers: readonly DevServer[]): { count: number; ports: number[]; text: string } {
  const running = servers.filter((s) => isRunning(s.status));
  const ports = [...new Set(running.map((s) => s.port).filter((p): p is number => typeof p === 'number' && p > 0))].sort((a, b) => a - b);
  if (running.length === 0) return { count: 0, ports: [], text: '' };
  return { count: running.length, ports, text: [`${running.length} running`, ...ports.map((p) => `:${p}`)].join(' ') };
}

/** A dev server's label: its name, else its command. */
export const serverLabel = (s: Pick<DevServer, 'name' | 'command' | 'args'>): string =>
  s.name || [s.command, ...(s.args ?? [])].join(' ');

/** How long since startedAt: "42s", "3m 07s", "2h 05m", "3d 4h". */
export function uptime(startedAt: number, now: number): string {
  const s = Math.max(0, Math.floor((now - startedAt) / 1000));
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${pad(s % 60)}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${pad(m % 60)}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** The color class of a status dot. */
export function statusTone(status: ProcessStatus | string): 'ok' | 'busy' | 'bad' | 'off' {
  switch (status) {
    case 'running':
      return 'ok';
    case 'starting':
      return 'busy';
    case 'errored':
      return 'bad';
    default:
      return 'off';
  }
}

/** "exited with code 1", "stopped (SIGTERM)", "running"… */
export function statusText(s: Pick<DevServer, 'status' | 'exitCode' | 'signal'>): string {
  if (s.status === 'exited' || s.status === 'errored') {
    if (s.signal) return `${s.status} (${s.signal})`;
    if (typeof s.exitCode === 'number') return `${s.status} with code ${s.exitCode}`;
  }
  if (s.status === 'stopped' && s.signal) return `stopped (${s.signal})`;
  return s.status;
}
