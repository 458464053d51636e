import { call, Topics, type GitChangedPayload, type GitDiffSummary, type GitStatusSummary } from '../bridge';
import { humanizeResult } from '../errors';
import type { PanelFile } from '../features/git/tree';
import { appState } from './appState.svelte';
import { liveStore } from './live';
import { errorText, toasts } from './toasts.svelte';

/** Which side of the changes a file is listed in. */
export type PanelScope = 'staged' | 'unstaged';

/** The file whose diff the panel shows. */
export interface Selection {
  path: string;
  scope: PanelScope;
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
 * tool call; "git_changed" for the repository re-reads.
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
    return this.hints.start();
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
      this.changes = (unstaged.content?.files ?? []).filter((f) => showUntracked || f.status !== 'untracked');
      this.error = '';
      this.cache.clear(); // the repository changed: patches are stale
      if (this.selected) await this.loadPatch(this.selected);
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loading = false;
    }
  }

  /** Shows a file's diff, loading it on demand; agents see the choice. */
  async select(sel: Selection): Promise<void> {
    this.selected = sel;
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

  /** Runs a git tool; failures become toasts; re-reads afterwards. */
  private async act(tool: string, args: Record<string, unknown>): Promise<boolean> {
    this.busy = true;
    try {
      const r = await call(tool, { cwd: this.cwd, ...args });
      if (!r.ok) {
        if (r.error?.code !== 'CANCELLED') toasts.push(humanizeResult(r));
        return false;
      }
      return true;
    } catch (err) {
      toasts.push(errorText(err));
      return false;
    } finally {
      this.busy = false;
      await this.refresh();
    }
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
   * "Confirm before restore" on, confirm decides first. A checkpoint is
   * taken by the tool, so the restore can be undone.
   */
  async restore(path: string, confirm: (question: string) => boolean): Promise<boolean> {
    if ((appState.settings?.git?.confirmBeforeRestore ?? true) && !confirm(`Discard changes in ${path}?`)) return false;
    return this.act('git_restore', { paths: [path], target: 'worktree', confirm: true });
  }

  /**
   * Discards the changes of a patch (a hunk or selected lines) from the
   * worktree, after the same confirmation as restore. A checkpoint is taken
   * by the tool first.
   */
  async discardPatch(patch: string, what: string, confirm: (question: string) => boolean): Promise<boolean> {
    if ((appState.settings?.git?.confirmBeforeRestore ?? true) && !confirm(`Discard changes in ${what}?`)) return false;
    return this.act('git_restore', { patch, target: 'worktree', confirm: true });
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
      await this.refresh();
    }
  }
}
