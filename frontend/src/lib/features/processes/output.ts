// The output of dev servers and terminals: pulled from the Go side's asset
// server (backend/process OutputHandler), never pushed as Wails events.
//
//   GET /_meith/process/<id>/output?after=<seq>
//     200 {"entries":[{seq,stream,text,ts}…],"nextSeq":N,"status":"running"}
//         as soon as there are entries after seq, else after ~2 s with none
//         (at once when the process has ended)
//     404 unknown process
//
// One request at a time; the next asks for what follows the last entry.

import type { OutputEntry, OutputPage } from '../../bridge';
import { abortableSleep } from '../../async/abortableSleep';

/** The path of a process's output after seq. */
export function outputURL(id: string, after: number): string {
  return `/_meith/process/${encodeURIComponent(id)}/output?after=${Math.max(0, Math.floor(after))}`;
}

/** Statuses after which a process writes nothing more. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['exited', 'errored', 'stopped']);

/** Whether a status is final (the process ended). */
export const isFinal = (status: string | undefined): boolean => FINAL_STATUSES.has(status ?? '');

/** The `after` to ask with once a page arrived: past its last entry and below its nextSeq. */
export function nextAfter(after: number, page: Pick<OutputPage, 'entries' | 'nextSeq'>): number {
  let a = after;
  const entries = page.entries ?? [];
  if (entries.length > 0) a = Math.max(a, entries[entries.length - 1].seq);
  if (page.nextSeq > 0) a = Math.max(a, page.nextSeq - 1);
  return a;
}

/** What the puller says about the stream besides entries. */
export type PullStatus =
  | { kind: 'live' }
  /** The request failed (network, bad answer); retried. */
  | { kind: 'error'; text: string };

/** How a pull ended. */
export type PullEnd = 'aborted' | 'ended' | 'gone';

export interface PullOutputOptions {
  signal: AbortSignal;
  /** Start after this seq (0: everything the engine still holds). */
  after?: number;
  /** Receives each page with entries (and the final one), in order. */
  onPage: (entries: OutputEntry[], page: OutputPage) => void;
  onStatus?: (s: PullStatus) => void;
  /** Resolves when the consumer can take more (backpressure); asked before every request. */
  ready?: () => Promise<void>;
  /** Test seams. */
  fetch?: typeof globalThis.fetch;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Back-off after a failed request, and the wait before the last look at an ended process. */
export const RETRY_MS = 500;
export const SETTLE_MS = 300;
/** An empty answer quicker than this was not a long poll. */
export const FAST_EMPTY_MS = 100;

/**
 * Pulls a process's output until the signal aborts ('aborted'), the process
 * ended and everything it wrote arrived ('ended'), or the engine does not
 * know it ('gone'). Never rejects.
 */
export async function pullOutput(id: string, opts: PullOutputOptions): Promise<PullEnd> {
  const { signal, onPage } = opts;
  const doFetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  const sleep = opts.sleep ?? abortableSleep;
  let after = opts.after ?? 0;
  let quietEnds = 0;
  let failing = false;
  while (!signal.aborted) {
    if (opts.ready) await opts.ready();
    if (signal.aborted) break;
    let page: OutputPage;
    const asked = Date.now();
    try {
      const r = await doFetch(outputURL(id, after), { signal, cache: 'no-store' });
      if (r.status === 404) return 'gone';
      if (!r.ok) throw new Error(`HTTP ${r.status}${await r.text().then((t) => (t.trim() ? `: ${t.trim()}` : ''), () => '')}`);
      page = (await r.json()) as OutputPage;
      if (!page || typeof page.nextSeq !== 'number') throw new Error('the answer is not an output page');
    } catch (err) {
      if (signal.aborted) break;
      failing = true;
      opts.onStatus?.({ kind: 'error', text: `output: ${err instanceof Error ? err.message : String(err)}` });
      await sleep(RETRY_MS, signal);
      continue;
    }
    if (failing) {
      failing = false;
      opts.onStatus?.({ kind: 'live' });
    }
    const entries = page.entries ?? [];
    after = nextAfter(after, page);
    if (entries.length > 0 || isFinal(page.status)) onPage(entries, page);
    if (!isFinal(page.status)) {
      quietEnds = 0;
      // An empty answer that came at once (the output ended a moment
      // before the status did): do not ask again in a tight loop.
      if (entries.length === 0 && Date.now() - asked < FAST_EMPTY_MS) await sleep(SETTLE_MS, signal);
      continue;
    }
    // Ended: ask once more after a moment for a last line (the exit
    // status line may follow the status change), then stop.
    if (entries.length > 0) continue;
    if (++quietEnds >= 2) return 'ended';
    await sleep(SETTLE_MS, signal);
  }
  return 'aborted';
}
