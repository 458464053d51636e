import { call, Topics, type GitBranch, type GitChangedPayload, type GitDiffSummary, type GitStatusSummary } from '../bridge';
import { humanizeResult, humanizeToolError } from '../errors';
import { appState } from './appState.svelte';
import { concerns, onRepoWritten, repoWritten } from './gitWrites';
import { liveStore } from './live';
import { errorText } from './toasts.svelte';

/**
 * The git summary of the active space's folder for the top header: the
 * change totals (git_diff {includePatches:false}) for the changes chip, and
 * the branch with ahead/behind (git_status) for the branch switcher. It
 * re-reads when the Go side's repository watcher reports a change
 * ("git_changed" for the space's repository), the space changes, or a
 * view of the window writes to the repository (gitWrites: a commit in a Git
 * tab shows in the chip at once, not after the watcher's hint); the
 * refresh interval of Settings → Git is only a fallback.
 */
/** How often a watched repository is re-read anyway (keeps its watcher alive). */
export const KEEPALIVE_MS = 4 * 60_000;
/**
 * The longest wait between the fallback re-reads of a folder that failed
 * (its folder was removed, it is not readable): each failure doubles the
 * wait from the refresh interval up to this, so a gone folder is not asked
 * about (and audited) every few seconds for ever. A hint or a change of
 * space still reads at once.
 */
export const FAILED_RETRY_MAX_MS = 60_000;

export class GitStore {
  /** The folder being summarised ('' when the space has none). */
  cwd = $state('');
  diff = $state<GitDiffSummary | null>(null);
  status = $state<GitStatusSummary | null>(null);
  error = $state('');
  /** Files changed, and totals, for the chip (0 when not a repository). */
  changedFiles = $derived(this.diff?.isRepo ? this.diff.files.length : 0);
  isRepo = $derived(!!this.status?.isRepo);

  private timer: ReturnType<typeof setInterval> | null = null;
  private hints = liveStore<GitChangedPayload>(Topics.gitChanged, () => this.load(), {
    accept: (p) => !!p && !!this.root() && p.root === this.root(),
    onError: (err) => (this.error = errorText(err)),
    readOnStart: false, // follow() reads, once there is a folder
  });

  private offWrites: (() => void) | null = null;

  /** Starts following the active space; returns stop. */
  start(): () => void {
    this.hints.start();
    this.offWrites?.();
    this.offWrites = onRepoWritten((path, origin) => {
      if (origin !== this && this.cwd && concerns(path, this.cwd, this.root())) void this.refresh();
    });
    return () => this.stop();
  }

  stop(): void {
    this.hints.stop();
    this.offWrites?.();
    this.offWrites = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Points the store at a folder (the active space's) and reads it. */
  follow(cwd: string, intervalMs: number): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (cwd !== this.cwd) {
      this.cwd = cwd;
      this.diff = null;
      this.status = null;
      this.failures = 0;
    }
    if (!cwd) return;
    void this.refresh();
    // The refresh interval is the fallback only: a tick re-reads when the Go
    // side has no watcher on the repository (inotify unavailable), and
    // otherwise only every KEEPALIVE_MS, which also keeps the watcher (it
    // stops after 10 idle minutes) alive while the space is shown.
    if (intervalMs > 0) {
      this.timer = setInterval(() => {
        const since = Date.now() - this.lastRead;
        if (this.failures > 0) {
          if (since >= Math.min(intervalMs * 2 ** this.failures, FAILED_RETRY_MAX_MS)) void this.refresh();
        } else if (!this.status?.watched || since > KEEPALIVE_MS) void this.refresh();
      }, intervalMs);
    }
  }

  /** Re-reads (calls during a read coalesce into one more). */
  refresh(): Promise<void> {
    return this.hints.refresh();
  }

  private root(): string {
    return this.status?.root ?? this.diff?.root ?? '';
  }

  private lastRead = 0;
  /** Reads that failed in a row (the fallback re-reads back off). */
  private failures = 0;

  private async load(): Promise<void> {
    const cwd = this.cwd;
    if (!cwd) return;
    this.lastRead = Date.now();
    try {
      const [d, s] = await Promise.all([
        call<GitDiffSummary>('git_diff', { cwd, includePatches: false }),
        call<GitStatusSummary>('git_status', { cwd }),
      ]);
      if (cwd !== this.cwd) return; // the space changed meanwhile
      if (d.ok && s.ok) {
        this.diff = d.content ?? null;
        this.status = s.content ?? null;
        this.error = '';
        this.failures = 0;
      } else {
        const e = (d.ok ? s : d).error;
        this.error = humanizeToolError(e, 'read the repository');
        this.failures++;
      }
    } catch (err) {
      this.error = errorText(err);
      this.failures++;
    }
  }

  /** The branches (current first), or undefined after an error (git.branchError). */
  async branches(): Promise<GitBranch[] | undefined> {
    return this.branchAction({ action: 'list' });
  }

  /** Switches to a branch; resolves the new list, or undefined after an error (git.branchError). */
  async switchBranch(name: string): Promise<GitBranch[] | undefined> {
    const r = await this.branchAction({ action: 'switch', name });
    if (r) {
      repoWritten(this.root() || this.cwd, this);
      await this.refresh();
    }
    return r;
  }

  /** Creates a branch from HEAD and switches to it. */
  async createBranch(name: string): Promise<GitBranch[] | undefined> {
    const created = await this.branchAction({ action: 'create', name });
    if (!created) return undefined;
    return this.switchBranch(name);
  }

  private async branchAction(args: Record<string, unknown>): Promise<GitBranch[] | undefined> {
    try {
      const r = await call<GitBranch[]>('git_branch', { cwd: this.cwd, ...args });
      if (r.ok) return r.content ?? [];
      this.branchError = humanizeResult(r, 'change the branch');
    } catch (err) {
      this.branchError = errorText(err);
    }
    return undefined; // shown once: in the branch switcher (git.branchError), not also as a toast
  }

  /** The last branch error (shown in the switcher). */
  branchError = $state('');

  /**
   * Opens the Git tab in the right pane: moves the space's Git tab there,
   * or opens one, splitting the workspace when needed.
   */
  async openGitTab(): Promise<void> {
    const existing = appState.tabs.find((t) => t.kind === 'git');
    if (existing) {
      if (existing.pane === 'secondary') await appState.focusTab(existing.id);
      else if (appState.primaryItems.length > 1) await appState.moveTab(existing.id, 'secondary');
      else await appState.focusTab(existing.id);
      return;
    }
    await appState.openTab('git', { title: 'Git', cwd: this.cwd, pane: 'secondary' });
  }
}

export const git = new GitStore();
