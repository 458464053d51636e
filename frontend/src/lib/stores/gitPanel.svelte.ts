import { call, Topics, type GitChangedPayload, type GitDiffSummary, type GitStatusSummary } from '../bridge';
import { humanizeResult } from '../errors';
import type { PanelFile } from '../features/git/tree';
import { appState } from './appState.svelte';
import { confirmDialog } from './dialogs.svelte';
import { concerns, offerUndo, onRepoWritten, repoWritten } from './gitWrites';
import { liveStore } from './live';
import { errorText, toasts } from './toasts.svelte';

/** Which side of the changes a file is listed in. */
export type PanelScope = 'staged' | 'unstaged';

/** The file whose diff the panel shows. */
export interface Selection {
  path: string;
  scope: PanelScope;
}

/** The parts of git_restore's result the panel reads. */
interface RestoreResult {
  checkpoint?: { id: string };
}

interface DiffFile extends PanelFile {
  diff: string;
  large?: boolean;
}

/**
 * The state of one Git tab: the Staged and Changes lists (git_diff per
 * scope, counts only), the branch (git_status), the selected file's patch
 * (loaded on demand, cached per scope and path until the repository
 * changes), and the staging, restore and commit actions. Everything is a
 * tool call; "git_changed" for the repository re-reads, and so does a write
 * by any view of the window (gitWrites), which this store announces after
 * its own. During a merge the conflicted files come first in Changes and
 * the commit waits until they are staged; the commit then concludes the
 * merge (the Go side adds MERGE_HEAD as the second parent).
 */
export class GitPanelStore {
  staged = $state<PanelFile[]>([]);
  changes = $state<PanelFile[]>([]);
  status = $state<GitStatusSummary | null>(null);
  loading = $state(true);
  error = $state('');
  selected = $state<Selection | null>(null);
  /** The selected file's patch ('' while loading or without a selection). */
  patch = $state<{ diff: string; binary: boolean; large: boolean } | null>(null);
  busy = $state(false);
  commitError = $state('');

  isRepo = $derived(!!this.status?.isRepo);
  /** A merge is in progress. */
  merging = $derived(!!this.status?.merging);
  /** The paths with unresolved conflicts (staging a path resolves it). */
  conflicted = $derived((this.status?.conflicted ?? []).map((f) => f.path));
  /** Something is staged and no conflict is left. */
  canCommit = $derived(this.staged.length > 0 && this.conflicted.length === 0);
  changedCount = $derived(new Set([...this.staged, ...this.changes].map((f) => f.path)).size);
  totals = $derived({
    additions: [...this.staged, ...this.changes].reduce((n, f) => n + f.additions, 0),
    deletions: [...this.staged, ...this.changes].reduce((n, f) => n + f.deletions, 0),
  });

  private cache = new Map<string, { diff: string; binary: boolean; large: boolean }>();
  private hints = liveStore<GitChangedPayload>(Topics.gitChanged, () => this.load(), {
    accept: (p) => !!p && p.root === this.status?.root,
    onError: (err) => (this.error = errorText(err)),
  });

  constructor(
    readonly cwd: string,
    readonly tabId: string,
    initial: string | null = null,
  ) {
    if (initial) this.selected = { path: initial, scope: 'unstaged' };
  }

  /** Subscribes to repository changes and reads; returns stop. */
  start(): () => void {
    const stopHints = this.hints.start();
    const offWrites = onRepoWritten((path, origin) => {
      if (origin !== this && concerns(path, this.cwd, this.status?.root)) void this.refresh();
    });
    return () => {
      offWrites();
      stopHints();
    };
  }

  /** Re-reads (calls during a read coalesce into one more). */
  refresh(): Promise<void> {
    return this.hints.refresh();
  }

  private async load(): Promise<void> {
    try {
      const showUntracked = appState.settings?.git?.showUntrackedFiles ?? true;
      const [st, staged, unstaged] = await Promise.all([
        call<GitStatusSummary>('git_status', { cwd: this.cwd }),
        call<GitDiffSummary>('git_diff', { cwd: this.cwd, includePatches: false, scope: 'staged' }),
        call<GitDiffSummary>('git_diff', { cwd: this.cwd, includePatches: false, scope: 'unstaged' }),
      ]);
      const failed = [st, staged, unstaged].find((r) => !r.ok);
      if (failed) {
        this.error = humanizeResult(failed, 'read the repository');
        return;
      }
      this.status = st.content ?? null;
      this.staged = staged.content?.files ?? [];
      const conflicted = new Set(this.conflicted);
      // Conflicted files first (stable otherwise).
      this.changes = (unstaged.content?.files ?? [])
        .filter((f) => showUntracked || f.status !== 'untracked')
        .map((f, i) => ({ f, i, c: conflicted.has(f.path) || f.status === 'conflicted' ? 0 : 1 }))
        .sort((a, b) => a.c - b.c || a.i - b.i)
        .map((x) => x.f);
      this.error = '';
      this.cache.clear(); // the repository changed: patches are stale
      this.keepSelection();
      if (this.selected) await this.loadPatch(this.selected);
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loading = false;
    }
  }

  // The files listed when the selection was made, to find its neighbour.
  private listedWith: string[] = [];

  /**
   * After a read: a selected file that left its list (committed, discarded,
   * staged) gives way to the file that took its place in that list, or to
   * none ("Select a file").
   */
  private keepSelection(): void {
    const sel = this.selected;
    if (!sel) return;
    const list = (sel.scope === 'staged' ? this.staged : this.changes).map((f) => f.path);
    if (list.includes(sel.path)) {
      this.listedWith = list;
      return;
    }
    const before = this.listedWith.length ? this.listedWith : [sel.path];
    const at = Math.max(0, before.indexOf(sel.path));
    const next = before.slice(at + 1).find((p) => list.includes(p)) ?? before.slice(0, at).reverse().find((p) => list.includes(p));
    this.selected = next ? { path: next, scope: sel.scope } : null;
    this.patch = null;
    this.listedWith = list;
    void call('set_workspace_tab_file', { tabId: this.tabId, selectedGitFilePath: next ?? null });
  }

  /** Shows a file's diff, loading it on demand; agents see the choice. */
  async select(sel: Selection): Promise<void> {
    this.selected = sel;
    this.listedWith = (sel.scope === 'staged' ? this.staged : this.changes).map((f) => f.path);
    void call('set_workspace_tab_file', { tabId: this.tabId, selectedGitFilePath: sel.path });
    await this.loadPatch(sel);
  }

  private async loadPatch(sel: Selection): Promise<void> {
    const key = `${sel.scope}:${sel.path}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.patch = hit;
      return;
    }
    this.patch = null;
    try {
      const r = await call<Omit<GitDiffSummary, 'files'> & { files: DiffFile[] }>('git_diff', {
        cwd: this.cwd, includePatches: true, path: sel.path, scope: sel.scope, onlyPath: true,
      });
      if (!r.ok) {
        this.error = humanizeResult(r, 'read the diff');
        return;
      }
      const f = r.content?.files.find((x) => x.path === sel.path);
      const value = { diff: f?.diff ?? '', binary: !!f?.binary, large: !!f?.large };
      this.cache.set(key, value);
      if (this.selected?.path === sel.path && this.selected.scope === sel.scope) this.patch = value;
    } catch (err) {
      this.error = errorText(err);
    }
  }

  /**
   * Runs a git tool; failures become toasts; re-reads afterwards and tells
   * the window's other views of the repository. Resolves the tool's content
   * on success, undefined on failure.
   */
  private async run<T = unknown>(tool: string, args: Record<string, unknown>): Promise<T | undefined> {
    this.busy = true;
    try {
      const r = await call<T>(tool, { cwd: this.cwd, ...args });
      if (!r.ok) {
        if (r.error?.code !== 'CANCELLED') toasts.push(humanizeResult(r));
        return undefined;
      }
      return (r.content ?? {}) as T;
    } catch (err) {
      toasts.push(errorText(err));
      return undefined;
    } finally {
      this.busy = false;
      repoWritten(this.status?.root ?? this.cwd, this);
      await this.refresh();
    }
  }

  private async act(tool: string, args: Record<string, unknown>): Promise<boolean> {
    return (await this.run(tool, args)) !== undefined;
  }

  stage(paths: string[]): Promise<boolean> {
    return this.act('git_stage', { paths });
  }

  unstage(paths: string[]): Promise<boolean> {
    return this.act('git_unstage', { paths });
  }

  stagePatch(patch: string): Promise<boolean> {
    return this.act('git_stage', { patch });
  }

  unstagePatch(patch: string): Promise<boolean> {
    return this.act('git_unstage', { patch });
  }

  stageAll(): Promise<boolean> {
    return this.stage(this.changes.map((f) => f.path.replace(/\/$/, '')));
  }

  unstageAll(): Promise<boolean> {
    return this.unstage(this.staged.map((f) => f.path));
  }

  /**
   * Discards a file's unstaged changes (untracked files are deleted). With
   * "Confirm before restore" on, the in-app dialog asks first ("Discard",
   * or "Delete file" for an untracked file). The tool pins a checkpoint
   * first; the toast's Undo restores it.
   */
  async restore(path: string): Promise<boolean> {
    const untracked = this.changes.find((f) => f.path === path)?.status === 'untracked';
    const ok = await this.ask(
      untracked
        ? { title: 'Delete file?', message: `${path} is not tracked by git; it is deleted. You can undo this from the notification.`, confirmLabel: 'Delete file' }
        : { title: 'Discard changes?', message: `The unstaged changes in ${path} are discarded. You can undo this from the notification.`, confirmLabel: 'Discard' },
    );
    if (!ok) return false;
    const out = await this.run<RestoreResult>('git_restore', { paths: [path], target: 'worktree', confirm: true });
    if (!out) return false;
    offerUndo(untracked ? `Deleted ${path}.` : `Discarded changes in ${path}.`, this.cwd, out.checkpoint?.id);
    return true;
  }

  /**
   * Discards the changes of a patch (a hunk or selected lines) from the
   * worktree, after the same confirmation as restore; Undo as restore.
   */
  async discardPatch(patch: string, what: string): Promise<boolean> {
    const ok = await this.ask({ title: 'Discard changes?', message: `The changes in ${what} are discarded. You can undo this from the notification.`, confirmLabel: 'Discard' });
    if (!ok) return false;
    const out = await this.run<RestoreResult>('git_restore', { patch, target: 'worktree', confirm: true });
    if (!out) return false;
    offerUndo(`Discarded changes in ${what}.`, this.cwd, out.checkpoint?.id);
    return true;
  }

  private async ask(q: { title: string; message: string; confirmLabel: string }): Promise<boolean> {
    if (!(appState.settings?.git?.confirmBeforeRestore ?? true)) return true;
    return confirmDialog({ ...q, destructive: true });
  }

  /** Commits the index; resolves true on success. */
  async commit(message: string): Promise<boolean> {
    this.busy = true;
    this.commitError = '';
    try {
      const r = await call('git_commit', { cwd: this.cwd, message });
      if (!r.ok) {
        this.commitError = humanizeResult(r, 'commit');
        return false;
      }
      return true;
    } catch (err) {
      this.commitError = errorText(err);
      return false;
    } finally {
      this.busy = false;
      repoWritten(this.status?.root ?? this.cwd, this);
      await this.refresh();
    }
  }
}
