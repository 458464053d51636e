import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// A small repository model behind the bridge: files in the index and the
// worktree, a merge in progress, checkpoints; git tools answer from it.
// No hint ("git_changed") is ever emitted: the views must refresh by
// themselves after their own writes.
const fake = vi.hoisted(() => {
  type F = { path: string; status: string; additions: number; deletions: number; binary: boolean };
  const db = {
    calls: [] as { tool: string; args: Record<string, unknown> }[],
    staged: [] as F[],
    unstaged: [] as F[],
    ahead: 6,
    merging: false,
    conflicted: [] as string[],
    checkpoints: 0,
  };
  const file = (path: string, status = 'modified'): F => ({ path, status, additions: 3, deletions: 1, binary: false });
  return {
    db,
    file,
    reset() {
      db.calls = [];
      db.staged = [];
      db.unstaged = [];
      db.ahead = 6;
      db.merging = false;
      db.conflicted = [];
      db.checkpoints = 0;
    },
    async call(tool: string, args: Record<string, unknown> = {}) {
      db.calls.push({ tool, args });
      await Promise.resolve();
      const status = () => ({
        isRepo: true, root: '/repo', branch: 'main', ahead: db.ahead, behind: 0, watched: true, merging: db.merging,
        conflicted: db.conflicted.map((path) => ({ path, status: 'conflicted' })), clean: db.staged.length + db.unstaged.length === 0,
      });
      switch (tool) {
        case 'git_status':
          return { ok: true, content: status() };
        case 'git_diff': {
          const files = args.scope === 'staged' ? db.staged : args.scope === 'unstaged' ? db.unstaged : [...db.staged, ...db.unstaged];
          const listed = args.onlyPath ? files.filter((f) => f.path === args.path) : files;
          return { ok: true, content: { isRepo: true, root: '/repo', scope: args.scope ?? 'all', totalAdditions: 0, totalDeletions: 0,
            files: listed.map((f) => ({ ...f, diff: args.includePatches ? `diff --git a/${f.path} b/${f.path}\n--- a/${f.path}\n+++ b/${f.path}\n@@ -1 +1 @@\n-a\n+b\n` : '' })) } };
        }
        case 'git_stage': {
          for (const p of args.paths as string[]) {
            const f = db.unstaged.find((x) => x.path === p)!;
            db.unstaged = db.unstaged.filter((x) => x.path !== p);
            db.conflicted = db.conflicted.filter((x) => x !== p);
            db.staged.push({ ...f, status: 'modified' });
          }
          return { ok: true, content: { status: status() } };
        }
        case 'git_commit':
          db.staged = [];
          db.ahead++;
          db.merging = false;
          return { ok: true, content: { status: status() } };
        case 'git_restore': {
          const cp = `cp_${++db.checkpoints}`;
          for (const p of (args.paths as string[] | undefined) ?? []) db.unstaged = db.unstaged.filter((x) => x.path !== p);
          return { ok: true, content: { status: status(), checkpoint: { id: cp }, undo: `git_checkpoint_restore {"id":"${cp}"}` } };
        }
        case 'git_checkpoint_restore':
          return { ok: true, content: { status: status(), preRestore: { id: 'cp_pre' }, checkpoint: { id: args.id } } };
        default:
          return { ok: true, content: {} };
      }
    },
  };
});

vi.mock('../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../bridge')>();
  return { ...real, call: vi.fn(fake.call), subscribe: vi.fn(() => () => {}) };
});

const { GitStore } = await import('./git.svelte');
const { GitPanelStore } = await import('./gitPanel.svelte');
const { toasts } = await import('./toasts.svelte');
const { dialogs } = await import('./dialogs.svelte');
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
};
// Answers the in-app confirmation (which must be shown) and returns it.
const answer = async (ok: boolean) => {
  await settle();
  const d = dialogs.current;
  expect(d).not.toBeNull();
  dialogs.answer(d!.id, ok);
  return d!;
};

let header: InstanceType<typeof GitStore>;
let panel: InstanceType<typeof GitPanelStore>;
let stops: (() => void)[] = [];
beforeEach(async () => {
  fake.reset();
  toasts.clear();
  dialogs.cancelAll();
  header = new GitStore();
  panel = new GitPanelStore('/repo', 'wtab_1');
  stops = [header.start(), panel.start()];
});
afterEach(() => {
  for (const s of stops) s();
});

describe('every view of a repository refreshes after a write', () => {
  it('the header chip and ahead count follow a commit made in the panel at once', async () => {
    fake.db.staged = [fake.file('a.txt'), fake.file('b.txt')];
    header.follow('/repo', 0);
    await settle();
    expect(header.changedFiles).toBe(2);
    expect(header.status?.ahead).toBe(6);

    expect(await panel.commit('feat: x')).toBe(true);
    await settle();
    expect(panel.status?.ahead).toBe(7);
    expect(header.status?.ahead).toBe(7);
    expect(header.changedFiles).toBe(0);
  });

  it('a branch switch in the header refreshes the panel', async () => {
    header.follow('/repo', 0);
    await settle();
    fake.db.unstaged = [fake.file('n.txt')];
    await header.switchBranch('main');
    await settle();
    expect(panel.changes.map((f) => f.path)).toEqual(['n.txt']);
  });
});

describe('GitPanelStore merge conflicts', () => {
  it('lists conflicted files first, blocks the commit until they are staged, then concludes the merge', async () => {
    fake.db.merging = true;
    fake.db.conflicted = ['README.md'];
    fake.db.unstaged = [fake.file('a.txt'), fake.file('README.md', 'conflicted')];
    await panel.refresh();
    expect(panel.merging).toBe(true);
    expect(panel.conflicted).toEqual(['README.md']);
    expect(panel.changes.map((f) => f.path)).toEqual(['README.md', 'a.txt']);
    expect(panel.canCommit).toBe(false);

    await panel.stage(['README.md']);
    expect(panel.conflicted).toEqual([]);
    expect(panel.canCommit).toBe(true);
    expect(await panel.commit("Merge branch 'side'")).toBe(true);
    expect(panel.merging).toBe(false);
  });
});

describe('GitPanelStore discard', () => {
  it('asks in the window ("Delete file" for an untracked file), and offers Undo backed by the checkpoint', async () => {
    fake.db.unstaged = [fake.file('a.txt'), fake.file('new.txt', 'untracked')];
    await panel.refresh();

    const asked = panel.restore('new.txt');
    const d = await answer(false);
    expect(d.confirmLabel).toBe('Delete file');
    expect(d.destructive).toBe(true);
    expect(await asked).toBe(false);
    expect(fake.db.calls.some((c) => c.tool === 'git_restore')).toBe(false);

    const done = panel.restore('a.txt');
    expect((await answer(true)).confirmLabel).toBe('Discard');
    expect(await done).toBe(true);
    const t = toasts.list.at(-1)!;
    expect(t.text).toContain('a.txt');
    expect(t.action?.label).toBe('Undo');
    await toasts.runAction(t.id);
    expect(fake.db.calls.filter((c) => c.tool === 'git_checkpoint_restore').map((c) => c.args)).toEqual([{ cwd: '/repo', id: 'cp_1', confirm: true }]);
  });

  it('selects the next file after the shown one is discarded or committed, and nothing when none is left', async () => {
    fake.db.unstaged = [fake.file('a.txt'), fake.file('b.txt')];
    await panel.refresh();
    await panel.select({ path: 'a.txt', scope: 'unstaged' });
    const done = panel.restore('a.txt');
    await answer(true);
    await done;
    await settle();
    expect(panel.selected).toEqual({ path: 'b.txt', scope: 'unstaged' });

    await panel.stage(['b.txt']);
    await panel.select({ path: 'b.txt', scope: 'staged' });
    await panel.commit('x');
    await settle();
    expect(panel.selected).toBeNull();
  });
});
