// "Open in editor": the one entry point the Git panel's diff, an agent's tool
// call card and a terminal's file links use. It finds the editor tab of the
// active space whose folder holds the file (the deepest such folder), or
// opens one (in the space's folder when that holds the file, else in the
// given folder), shows it, and opens the file there at the line and column.
// A tab whose view is not mounted yet takes the request when it mounts.
import { appState } from '../../stores/appState.svelte';
import type { EditorStore, Reveal } from './editorStore.svelte';
import { relativeTo } from './fileTools';

/** Where to open: a folder and a path in it (or absolute), with an optional 1-based line and column. */
export interface OpenRequest {
  cwd: string;
  path: string;
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
}

const stores = new Map<string, EditorStore>();
const pending = new Map<string, { path: string; at?: Reveal }>();

/** An editor tab's view registers its store while mounted; the returned function unregisters it. */
export function registerEditor(tabId: string, store: EditorStore): () => void {
  stores.set(tabId, store);
  const p = pending.get(tabId);
  if (p) {
    pending.delete(tabId);
    void store.open(p.path, p.at);
  }
  return () => {
    if (stores.get(tabId) === store) stores.delete(tabId);
  };
}

/** The absolute, normalised form of a request's path ("." and ".." parts resolved). */
export function absolutePath(cwd: string, path: string): string {
  const joined = path.startsWith('/') ? path : `${cwd.replace(/\/+$/, '')}/${path}`;
  const out: string[] = [];
  for (const part of joined.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return '/' + out.join('/');
}

/** The editor tab (of those given) whose folder holds abs most closely, with the path relative to it. */
export function pickEditorTab<T extends { id: string; kind: string; cwd: string }>(tabs: readonly T[], abs: string): { tab: T; rel: string } | null {
  let best: { tab: T; rel: string } | null = null;
  for (const t of tabs) {
    if (t.kind !== 'editor') continue;
    const rel = relativeTo(t.cwd, abs);
    if (rel === null || rel === '') continue;
    if (!best || t.cwd.length > best.tab.cwd.length) best = { tab: t, rel };
  }
  return best;
}

/** Opens a file in the editor (see the file comment); resolves false when it could not. */
export async function openInEditor(req: OpenRequest): Promise<boolean> {
  const abs = absolutePath(req.cwd, req.path);
  const at: Reveal | undefined = req.line ? { line: req.line, column: req.column, endLine: req.endLine, endColumn: req.endColumn } : undefined;
  let target = pickEditorTab(appState.tabs, abs);
  if (!target) {
    const spaceCwd = appState.activeSpace?.cwd ?? '';
    const folder = spaceCwd && relativeTo(spaceCwd, abs) ? spaceCwd : req.cwd.startsWith('/') ? req.cwd : abs.slice(0, abs.lastIndexOf('/')) || '/';
    const tab = await appState.openTab('editor', { cwd: folder });
    if (!tab) return false;
    const rel = relativeTo(tab.cwd, abs);
    if (rel === null || rel === '') return false;
    target = { tab: { ...tab }, rel };
  } else {
    // Shown in its pane, and that pane focused.
    await appState.focusTab(target.tab.id);
  }
  const store = stores.get(target.tab.id);
  if (store) await store.open(target.rel, at);
  else pending.set(target.tab.id, { path: target.rel, at });
  return true;
}
