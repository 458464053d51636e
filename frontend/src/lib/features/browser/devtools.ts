// The devtools panels' logic (Console and Network in the drawer): which
// entries a panel shows, given the tab's captured logs (get_console_logs,
// get_network_logs: bounded rings on the Go side), the panel's filters, a
// Clear, and whether the log is preserved across navigations.

import type { ConsoleEntry, NetworkEntry } from '../../bridge/generated/tools';

export type { ConsoleEntry, NetworkEntry };

/** The console levels, in the order the filter shows them. */
export const LEVELS = ['error', 'warn', 'info', 'log', 'debug'] as const;
export type Level = (typeof LEVELS)[number];

/** The request kinds the Network filter offers (CDP resource types grouped as DevTools does). */
export const NETWORK_KINDS = ['all', 'fetch', 'doc', 'css', 'js', 'img', 'media', 'font', 'ws', 'other'] as const;
export type NetworkKind = (typeof NETWORK_KINDS)[number];

/** The kind of a request from its CDP resource type. */
export function networkKind(resourceType: string | undefined): Exclude<NetworkKind, 'all'> {
  switch (resourceType) {
    case 'Fetch':
    case 'XHR':
    case 'EventSource':
      return 'fetch';
    case 'Document':
      return 'doc';
    case 'Stylesheet':
      return 'css';
    case 'Script':
      return 'js';
    case 'Image':
      return 'img';
    case 'Media':
      return 'media';
    case 'Font':
      return 'font';
    case 'WebSocket':
      return 'ws';
  }
  return 'other';
}

/**
 * Where the log a panel shows starts: the later of a Clear and, unless the
 * log is preserved, the start of the page's last navigation (the newest
 * main-frame document request). Entries before it are hidden.
 */
export function logStart(network: NetworkEntry[], clearedAt: number, preserve: boolean): number {
  let start = clearedAt;
  if (!preserve) {
    for (let i = network.length - 1; i >= 0; i--) {
      if (network[i].navigation) {
        start = Math.max(start, network[i].startedAt);
        break;
      }
    }
  }
  return start;
}

/** The Console panel's filter. */
export interface ConsoleFilter {
  /** The levels shown (all when it holds them all). */
  levels: ReadonlySet<string>;
  /** Text to search for (case-insensitive; '' for none). */
  text: string;
  /** Entries older than this (Unix ms) are hidden. */
  since: number;
}

/** The console entries a filter shows, oldest first. */
export function filterConsole(entries: ConsoleEntry[], f: ConsoleFilter): ConsoleEntry[] {
  const needle = f.text.trim().toLowerCase();
  return entries.filter(
    (e) => e.ts >= f.since && f.levels.has(normalLevel(e.level)) && (!needle || e.text.toLowerCase().includes(needle)),
  );
}

/** A level the filter knows (unknown levels count as log). */
export function normalLevel(level: string): Level {
  return (LEVELS as readonly string[]).includes(level) ? (level as Level) : 'log';
}

/** Counts of entries per level (for the filter's badges). */
export function levelCounts(entries: ConsoleEntry[], since: number): Record<Level, number> {
  const out: Record<Level, number> = { error: 0, warn: 0, info: 0, log: 0, debug: 0 };
  for (const e of entries) if (e.ts >= since) out[normalLevel(e.level)]++;
  return out;
}

/** The Network panel's filter. */
export interface NetworkFilter {
  kind: NetworkKind;
  /** Text to search for in the URL, method and status ('' for none). */
  text: string;
  since: number;
}

/** The requests a filter shows, oldest first. */
export function filterNetwork(entries: NetworkEntry[], f: NetworkFilter): NetworkEntry[] {
  const needle = f.text.trim().toLowerCase();
  return entries.filter((e) => {
    if (e.startedAt < f.since) return false;
    if (f.kind !== 'all' && networkKind(e.resourceType) !== f.kind) return false;
    if (!needle) return true;
    return `${e.method} ${e.url} ${e.status ?? ''} ${e.statusText ?? ''}`.toLowerCase().includes(needle);
  });
}

/** A byte count as DevTools shows it (B, kB, MB). */
export function formatSize(bytes: number | undefined): string {
  if (!bytes) return '—';
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** A duration in ms as DevTools shows it. */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined || ms === null) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** What the Status column says: the code, (failed) with its reason, or (pending). */
export function statusText(e: NetworkEntry): string {
  if (e.failed) return e.errorText ? `(failed) ${e.errorText.replace(/^net::/, '')}` : '(failed)';
  if (e.status) return String(e.status);
  return e.endedAt ? '—' : '(pending)';
}

/** The last part of a URL's path (its name in the Name column), with the query. */
export function requestName(url: string): string {
  try {
    const u = new URL(url);
    const last = u.pathname.split('/').filter(Boolean).pop() ?? '';
    return (last || u.host) + u.search;
  } catch {
    return url;
  }
}
