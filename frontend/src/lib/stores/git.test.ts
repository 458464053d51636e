import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The bridge stand-in: git tools answered from a tiny model, and events.
const fake = vi.hoisted(() => {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const db = {
    calls: [] as { tool: string; args: Record<string, unknown> }[],
    files: 2,
    watched: true,
    branches: [
      { name: 'main', current: true, upstream: 'origin/main', commit: 'abc1234', subject: 'first' },
      { name: 'feature', current: false, upstream: '', commit: 'def5678', subject: 'wip' },
    ],
    failBranch: '' as string,
    gone: false,
  };
  return {
    db,
    emit(topic: string, payload: unknown) {
      for (const fn of [...(listeners.get(topic) ?? [])]) fn(payload);
    },
    async call(tool: string, args: Record<string, unknown> = {}) {
      db.calls.push({ tool, args });
      await Promise.resolve();
      if (db.gone && (tool === 'git_diff' || tool === 'git_status')) {
        return { ok: false, error: { code: 'TOOL_FAILED', message: 'Cannot open /repo: no such file or directory' } };
      }
      switch (tool) {
        case 'git_diff':
          return { ok: true, content: { isRepo: true, root: '/repo', scope: 'all', files: Array.from({ length: db.files }, (_, i) => ({ path: `f${i}`, status: 'modified', additions: 1, deletions: 0, binary: false })), totalAdditions: db.files, totalDeletions: 0 } };
        case 'git_status':
          return { ok: true, content: { isRepo: true, root: '/repo', branch: db.branches.find((b) => b.current)?.name, ahead: 1, behind: 0, watched: db.watched } };
        case 'git_branch': {
          if (db.failBranch) return { ok: false, error: { code: 'TOOL_FAILED', message: db.failBranch } };
          if (args.action === 'create') db.branches.push({ name: String(args.name), current: false, upstream: '', commit: 'abc1234', subject: 'first' });
          if (args.action === 'switch') for (const b of db.branches) b.current = b.name === args.name;
          return { ok: true, content: structuredClone(db.branches) };
        }
        default:
          return { ok: true, content: {} };
      }
    },
    subscribe(topic: string, fn: (p: unknown) => void) {
      let set = listeners.get(topic);
      if (!set) listeners.set(topic, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
  };
});

vi.mock('../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../bridge')>();
  return { ...real, call: vi.fn(fake.call), subscribe: vi.fn(fake.subscribe) };
});

const { GitStore, KEEPALIVE_MS, FAILED_RETRY_MAX_MS } = await import('./git.svelte');
const { toasts } = await import('./toasts.svelte');
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
};
const reads = () => fake.db.calls.filter((c) => c.tool === 'git_diff').length;

let store: InstanceType<typeof GitStore>;
beforeEach(() => {
  fake.db.calls = [];
  fake.db.files = 2;
  fake.db.watched = true;
  fake.db.failBranch = '';
  fake.db.gone = false;
  toasts.clear();
  store = new GitStore();
  store.start();
});
afterEach(() => {
  store.stop();
  vi.useRealTimers();
});

describe('GitStore', () => {
  it('reads the space folder and re-reads on git_changed of its repository only', async () => {
    store.follow('/repo/src', 0);
    await settle();
    expect(store.changedFiles).toBe(2);
    expect(store.status?.branch).toBe('main');
    expect(fake.db.calls[0]).toEqual({ tool: 'git_diff', args: { cwd: '/repo/src', includePatches: false } });

    fake.db.files = 3;
    fake.emit('git_changed', { root: '/elsewhere', count: 1 });
    await settle();
    expect(store.changedFiles).toBe(2);
    fake.emit('git_changed', { root: '/repo', count: 1 });
    await settle();
    expect(store.changedFiles).toBe(3);
  });

  it('polls only as a fallback: when the repository is not watched, or to keep the watcher alive', async () => {
    vi.useFakeTimers();
    store.follow('/repo', 1000);
    await vi.advanceTimersByTimeAsync(10);
    const first = reads();
    await vi.advanceTimersByTimeAsync(5000);
    expect(reads()).toBe(first); // watched: no polling
    await vi.advanceTimersByTimeAsync(KEEPALIVE_MS);
    expect(reads()).toBeGreaterThan(first); // the keepalive
    fake.db.watched = false;
    await store.refresh();
    const before = reads();
    await vi.advanceTimersByTimeAsync(3000);
    expect(reads()).toBeGreaterThanOrEqual(before + 2); // not watched: every interval
  });

  it('backs off when the folder cannot be read (a removed project folder is not asked about every interval for ever)', async () => {
    vi.useFakeTimers();
    fake.db.gone = true;
    store.follow('/repo', 1000);
    await vi.advanceTimersByTimeAsync(10);
    expect(store.error).toContain('Cannot open');
    const first = reads();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    // 2, 4, 8, 16, 32 s, then a minute at a time: about 14 reads in ten minutes, not 600.
    const retries = reads() - first;
    expect(retries).toBeGreaterThanOrEqual(8);
    expect(retries).toBeLessThanOrEqual(16);
    const slow = reads();
    await vi.advanceTimersByTimeAsync(FAILED_RETRY_MAX_MS - 1000);
    expect(reads()).toBeLessThanOrEqual(slow + 1);
    // The folder is back: the next retry reads it and the polling is the plain fallback again.
    fake.db.gone = false;
    await vi.advanceTimersByTimeAsync(FAILED_RETRY_MAX_MS);
    expect(store.error).toBe('');
    expect(store.changedFiles).toBe(2);
    // A hint reads at once, whatever the back-off.
    fake.db.gone = true;
    await store.refresh();
    const n = reads();
    fake.emit('git_changed', { root: '/repo', count: 1 });
    await vi.advanceTimersByTimeAsync(10);
    expect(reads()).toBe(n + 1);
  });

  it('creates a branch from HEAD and switches to it; a failure is shown once, in words, in the switcher', async () => {
    store.follow('/repo', 0);
    await settle();
    const list = await store.createBranch('topic');
    expect(list?.find((b) => b.current)?.name).toBe('topic');
    const actions = fake.db.calls.filter((c) => c.tool === 'git_branch').map((c) => c.args.action);
    expect(actions).toEqual(['create', 'switch']);

    fake.db.failBranch = 'Your local changes to the following files would be overwritten by checkout: a.txt';
    expect(await store.switchBranch('main')).toBeUndefined();
    expect(store.branchError).toContain('a.txt');
    expect(store.branchError).not.toContain('TOOL_FAILED');
    expect(toasts.list).toEqual([]); // not a second time as a toast
  });
});
