// Pure helpers of the agent tab: names, times, sizes, tool results and
// checkpoint patches as the views show them.
import type { AgentMessage, AgentToolCall, AgentToolCallStatus, Capability } from '../../bridge';
import { humanizeResult } from '../../errors';

/** A tool's name for display: meith's own tools without the MCP prefix. */
export function toolDisplayName(name: string): string {
  return name.replace(/^mcp__meith__/, '');
}

/** The permission card's phrase for a capability (§4.3). */
export function actionFor(cap: Capability | string | undefined): string {
  switch (cap) {
    case 'read-only':
      return 'read state';
    case 'writes-files':
      return 'write files';
    case 'starts-process':
      return 'start a process';
    case 'controls-browser':
      return 'control the browser';
    case 'accesses-network':
      return 'access the network';
    case 'destructive':
      return 'perform a destructive action';
    default:
      return 'use it';
  }
}

/** "now", "5m", "3h", "2d", else a short date. */
export function relativeTime(ms: number, now: number = Date.now()): string {
  if (!ms) return '';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 45) return 'now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h}h`;
  const d = Math.round(h / 24);
  if (d < 7) return `${d}d`;
  return new Date(ms).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

/** A byte count for a chip: "512 B", "3.4 KiB", "1.2 MiB". */
export function fileSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** JSON for a <pre>: strings as they are, anything else indented. */
export function prettyJson(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

/** Whether a tool call has arguments worth showing. */
export function hasArgs(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return false;
  if (typeof v === 'object' && !Array.isArray(v)) return Object.keys(v as object).length > 0;
  return true;
}

/** What a tool call returned, as text: the error in words (errors.ts), else its data or output. */
export function resultText(tc: AgentToolCall): { error: boolean; text: string } | null {
  const r = tc.result;
  if (r) {
    if (!r.ok) return { error: true, text: humanizeResult(r, 'run the tool') };
    const data = r.content !== undefined ? r.content : r.data;
    const text = prettyJson(data);
    return text ? { error: false, text } : null;
  }
  if (tc.output) return { error: tc.status === 'failed', text: tc.output };
  return null;
}

/** Status of a tool call for its icon and its accessible label. */
export function statusInfo(s: AgentToolCallStatus | string): { icon: string; label: string; spin: boolean } {
  switch (s) {
    case 'completed':
      return { icon: '✓', label: 'completed', spin: false };
    case 'failed':
      return { icon: '✗', label: 'failed', spin: false };
    case 'denied':
      return { icon: '⊘', label: 'denied', spin: false };
    case 'cancelled':
      return { icon: '–', label: 'cancelled', spin: false };
    case 'awaiting_permission':
      return { icon: '?', label: 'awaiting permission', spin: false };
    case 'running':
      return { icon: '', label: 'running', spin: true };
    default:
      return { icon: '', label: 'pending', spin: true };
  }
}

/** The text parts of a message joined (what partial_text events stream). */
export function messageText(m: AgentMessage): string {
  return (m.parts ?? [])
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('');
}

/** The last folder name of a path. */
export function baseName(path: string): string {
  return path.replace(/\/+$/, '').split('/').pop() || path;
}

/** One file's chunk of a multi-file unified diff. */
export interface PatchFile {
  path: string;
  diff: string;
}

/** Splits `git diff` output of several files into one chunk per file (keyed by the new path, or the old one when deleted). */
export function splitPatch(patch: string): PatchFile[] {
  const out: PatchFile[] = [];
  if (!patch) return out;
  const lines = patch.split('\n');
  let cur: { path: string; old?: string; hunks: boolean; lines: string[] } | null = null;
  const flush = () => {
    if (cur) out.push({ path: cur.path, diff: cur.lines.join('\n') });
  };
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      flush();
      const m = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
      cur = { path: m ? m[2] : line.slice(11), hunks: false, lines: [line] };
      continue;
    }
    if (!cur) continue;
    if (line.startsWith('@@')) cur.hunks = true;
    else if (cur.hunks) {
      // a content line: file headers come before the first hunk only
    } else if (line.startsWith('--- ') && line !== '--- /dev/null') cur.old = line.slice(4).replace(/^a\//, '');
    else if (line.startsWith('+++ ')) cur.path = line === '+++ /dev/null' ? (cur.old ?? cur.path) : line.slice(4).replace(/^b\//, '');
    cur.lines.push(line);
  }
  flush();
  return out;
}
