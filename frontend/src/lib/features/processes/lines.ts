// The Output panel's lines: ANSI codes stripped, a bounded list (as many as
// the engine keeps), the stream and search filters, search highlights and
// the virtual list's arithmetic. No DOM here.

import type { OutputEntry, OutputStream } from '../../bridge';

/** As many lines as the engine keeps per dev server (process.MaxLogEntries). */
export const MAX_LINES = 5000;

// CSI (colors, cursor moves), OSC (titles, links) and other escapes, and
// control characters other than the tab.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]|[\x00-\x08\x0a-\x1f\x7f]/g;

/**
 * A line as it should read: without ANSI escapes and control characters;
 * for a line redrawn with carriage returns (progress bars), the last
 * non-empty redraw.
 */
export function cleanLine(text: string): string {
  let t = text;
  if (t.includes('\r')) {
    const parts = t.split('\r').filter((p) => p.replace(ANSI, '') !== '');
    t = parts.length ? parts[parts.length - 1] : '';
  }
  return t.replace(ANSI, '');
}

/** One line of the panel. */
export interface Line {
  seq: number;
  stream: OutputStream;
  text: string;
  ts: number;
}

/** Entries as lines (cleaned), appended to lines, keeping the newest max. */
export function appendLines(lines: Line[], entries: readonly OutputEntry[], max = MAX_LINES): Line[] {
  const out = lines;
  for (const e of entries) out.push({ seq: e.seq, stream: e.stream, text: cleanLine(e.text), ts: e.ts });
  if (out.length > max) out.splice(0, out.length - max);
  return out;
}

/** The stream filter's choices. */
export type StreamFilter = 'all' | 'stdout' | 'stderr' | 'system';

/** Whether a line passes the stream filter (stdout covers a terminal's pty chunks). */
export function streamMatches(stream: OutputStream, filter: StreamFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'stdout':
      return stream === 'stdout' || stream === 'pty';
    default:
      return stream === filter;
  }
}

/** The lines that pass the stream filter and contain query (case-insensitive; '' matches all). */
export function filterLines(lines: readonly Line[], filter: StreamFilter, query: string): Line[] {
  const q = query.trim().toLowerCase();
  if (filter === 'all' && !q) return lines.slice();
  return lines.filter((l) => streamMatches(l.stream, filter) && (!q || l.text.toLowerCase().includes(q)));
}

/** A piece of a line, marked when it matches the search. */
export interface Segment {
  text: string;
  hit: boolean;
}

/** Splits text around the (case-insensitive) matches of query. */
export function highlight(text: string, query: string): Segment[] {
  const q = query.trim().toLowerCase();
  if (!q) return [{ text, hit: false }];
  const lower = text.toLowerCase();
  const out: Segment[] = [];
  let at = 0;
  for (let i = lower.indexOf(q); i !== -1; i = lower.indexOf(q, i + q.length)) {
    if (i > at) out.push({ text: text.slice(at, i), hit: false });
    out.push({ text: text.slice(i, i + q.length), hit: true });
    at = i + q.length;
  }
  if (at < text.length || out.length === 0) out.push({ text: text.slice(at), hit: false });
  return out;
}

/** The rows a virtual list renders: [start, end) and the padding above them. */
export interface Window {
  start: number;
  end: number;
  /** Pixels above the first rendered row. */
  top: number;
  /** Pixels of all rows. */
  height: number;
}

/** The rows of a fixed-height virtual list that show at scrollTop, with overscan rows on each side. */
export function visibleRange(scrollTop: number, viewport: number, rowHeight: number, total: number, overscan = 8): Window {
  const height = total * rowHeight;
  if (total === 0 || rowHeight <= 0) return { start: 0, end: 0, top: 0, height: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const shown = Math.ceil(Math.max(0, viewport) / rowHeight) + 1;
  const start = Math.max(0, Math.min(total - 1, first) - overscan);
  const end = Math.min(total, first + shown + overscan);
  return { start, end, top: start * rowHeight, height };
}

/** Whether a scroller is at (or within slack pixels of) its bottom: auto-scroll follows then. */
export function atBottom(scrollTop: number, scrollHeight: number, clientHeight: number, slack = 8): boolean {
  return scrollHeight - scrollTop - clientHeight <= slack;
}
