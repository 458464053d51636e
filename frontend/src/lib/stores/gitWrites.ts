import { call, type GitCheckpointRestoreResult } from '../bridge';
import { errorText, resultError, toasts } from './toasts.svelte';

/**
 * The window's git writes, announced: after a commit, stage, restore,
 * checkpoint restore or branch operation the view that made it calls
 * repoWritten(root), and every view following that repository (the header's
 * chip and branch switcher, each Git tab) re-reads at once instead of
 * waiting for the file watcher's debounced hint.
 */
type Listener = (path: string, origin: unknown) => void;
const listeners = new Set<Listener>();

/** Subscribes to git writes (path: the repository root, or a folder in it); returns stop. */
export function onRepoWritten(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/**
 * Announces a write to the repository at (or containing) path; origin is
 * the view that made it (it re-reads by itself, so listeners may skip it).
 */
export function repoWritten(path: string, origin?: unknown): void {
  if (!path) return;
  for (const fn of [...listeners]) fn(path, origin);
}

/** Whether a write announced at path concerns a view of folder cwd whose repository root is root (maybe unknown yet). */
export function concerns(path: string, cwd: string, root: string | null | undefined): boolean {
  return inRepo(path, root) || inRepo(cwd, path);
}

/** Whether path is root or inside it (both absolute). */
export function inRepo(path: string, root: string | null | undefined): boolean {
  if (!path || !root) return false;
  const r = root.replace(/\/+$/, '');
  return path === r || path.startsWith(r + '/');
}

/**
 * Shows text with an Undo button that restores the pinned checkpoint a
 * discard or restore took first (git_checkpoint_restore), then announces
 * the write.
 */
export function offerUndo(text: string, cwd: string, checkpointId: string | undefined): number {
  if (!checkpointId) return toasts.show(text);
  return toasts.show(text, {
    action: {
      label: 'Undo',
      run: async () => {
        try {
          const r = await call<GitCheckpointRestoreResult>('git_checkpoint_restore', { cwd, id: checkpointId, confirm: true });
          if (!r.ok) {
            toasts.push(resultError(r, 'git_checkpoint_restore'));
            return;
          }
          toasts.show('Undone: the files are back as they were.');
          repoWritten(r.content?.status?.root ?? cwd);
        } catch (err) {
          toasts.push(errorText(err));
        }
      },
    },
  });
}
