// A terminal tab's session: the tab keeps the id of its terminal
// (set_workspace_tab_terminal); opening the tab reuses that terminal when
// the engine still has it (its scrollback is replayed), else it starts a
// new one in the tab's folder and binds it. A terminal of an earlier run
// (meith quit since) is named as restoreFrom: the engine saved its
// scrollback at shutdown and the new shell starts below it.

import { call, type TerminalSession, type TerminalSnapshot, type WorkspaceTab } from '../../bridge';
import { resultError } from '../../stores/toasts.svelte';

/** The session a view attaches to: the terminal and its scrollback so far. */
export interface Attached {
  terminal: TerminalSession;
  /** Output to replay before pulling more. */
  buffer: string;
  /** Pull the output after this seq. */
  after: number;
  /** The terminal began with the scrollback of the tab's terminal before meith quit. */
  restored: boolean;
}

/** What a view says about a restored session ('' when it is not one); never names an id. */
export function restoreNote(a: Pick<Attached, 'restored'>): string {
  return a.restored ? "This terminal's session ended when meith quit. Its output is kept above the new shell." : '';
}

// One attach per tab at a time: a view remounted while the first attach
// still runs joins it instead of starting a second terminal.
const inflight = new Map<string, Promise<Attached>>();

/** Thrown when a terminal cannot be opened; the text says why. */
export class SessionError extends Error {}

async function tool<T>(name: string, args: Record<string, unknown>): Promise<T> {
  const r = await call<T>(name, args);
  if (!r.ok) throw new SessionError(resultError(r, name));
  return r.content as T;
}

async function snapshot(terminalId: string): Promise<Attached | null> {
  const r = await call<TerminalSnapshot>('get_terminal_snapshot', { terminalId });
  if (!r.ok || !r.content) return null; // unknown: closed, or from an earlier run
  const { buffer, nextSeq, ...terminal } = r.content;
  // A terminal another window started from a saved scrollback says so here too.
  return { terminal, buffer: buffer ?? '', after: Math.max(0, (nextSeq ?? 0) - 1), restored: !!terminal.restoredFrom };
}

/**
 * Starts a terminal for the tab and binds it, unless the tab's binding is
 * no longer `expect` (what this view saw when it decided to start one):
 * another window showing the same tab started and bound its own first.
 * Then this view closes its terminal and shows that one, so two windows on
 * one tab end with one shell, not two.
 */
async function create(tab: WorkspaceTab, size: { cols: number; rows: number }, restoreFrom = '', expect = tab.terminalId ?? ''): Promise<Attached> {
  const args: Record<string, unknown> = { cwd: tab.cwd || '~' };
  if (size.cols > 0 && size.rows > 0) Object.assign(args, { cols: size.cols, rows: size.rows });
  if (restoreFrom) args.restoreFrom = restoreFrom;
  const terminal = await tool<TerminalSession>('create_terminal', args);
  let bound: WorkspaceTab;
  try {
    bound = await tool<WorkspaceTab>('set_workspace_tab_terminal', { tabId: tab.id, terminalId: terminal.id, expect });
  } catch (err) {
    // The tab went away meanwhile: do not leave its shell running.
    void call('close_terminal', { terminalId: terminal.id });
    throw err;
  }
  if (bound && bound.terminalId !== terminal.id) {
    const theirs = bound.terminalId ? await snapshot(bound.terminalId) : null;
    if (theirs) {
      void call('close_terminal', { terminalId: terminal.id });
      return theirs;
    }
    // Theirs is gone already (or the binding was cleared): ours takes the tab after all.
    await tool('set_workspace_tab_terminal', { tabId: tab.id, terminalId: terminal.id });
  }
  return { terminal, buffer: '', after: 0, restored: !!terminal.restoredFrom };
}

/** Attaches to the tab's terminal, starting one when it has none (or the engine forgot it). */
export function attach(tab: WorkspaceTab, size: { cols: number; rows: number }): Promise<Attached> {
  const running = inflight.get(tab.id);
  if (running) return running;
  const p = (async () => {
    if (tab.terminalId) {
      const s = await snapshot(tab.terminalId);
      if (s) return s;
      // Unknown now: from before meith quit (its saved output comes back), or closed.
      return create(tab, size, tab.terminalId);
    }
    return create(tab, size);
  })().finally(() => inflight.delete(tab.id));
  inflight.set(tab.id, p);
  return p;
}

/** Attaches to a terminal the engine runs (never starts one); SessionError when it does not know it. */
export async function reattach(terminalId: string): Promise<Attached> {
  const s = await snapshot(terminalId);
  if (!s) throw new SessionError('This terminal was closed.');
  return s;
}

/** Closes the tab's old terminal (if it still runs) and starts a new one in its place. */
export async function restart(tab: WorkspaceTab, oldId: string, size: { cols: number; rows: number }): Promise<Attached> {
  if (oldId) await call('close_terminal', { terminalId: oldId }).catch(() => undefined);
  return create(tab, size, '', oldId);
}

/** The terminal's record now (for its exit code), or null when the engine forgot it. */
export async function lookup(terminalId: string): Promise<TerminalSession | null> {
  const s = await snapshot(terminalId).catch(() => null);
  return s?.terminal ?? null;
}
