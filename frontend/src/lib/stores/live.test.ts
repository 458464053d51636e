import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The bridge stand-in: Wails events by topic, and a switch that makes
// subscribing fail as it does outside the window.
const fake = vi.hoisted(() => {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  return {
    listeners,
    failSubscribe: false,
    emit(topic: string, payload: unknown) {
      for (const fn of [...(listeners.get(topic) ?? [])]) fn(payload);
    },
    count(topic: string) {
      return listeners.get(topic)?.size ?? 0;
    },
    subscribe(topic: string, fn: (p: unknown) => void) {
      if (fake.failSubscribe) throw new Error('no Wails runtime');
      let set = listeners.get(topic);
      if (!set) listeners.set(topic, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
  };
});

vi.mock('../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../bridge')>();
  return { ...real, subscribe: vi.fn(fake.subscribe) };
});

const { liveStore, LiveModel } = await import('./live');

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 1));
};

/** A load that counts its reads and takes a few ms, like a tool call. */
function counter() {
  const c = { reads: 0, value: 0, seen: -1 };
  const load = async () => {
    c.reads++;
    const v = c.value;
    await new Promise((r) => setTimeout(r, 2));
    c.seen = v;
  };
  return { c, load };
}

beforeEach(() => {
  fake.listeners.clear();
  fake.failSubscribe = false;
});
afterEach(() => {
  vi.useRealTimers();
});

describe('liveStore', () => {
  it('subscribes once, reads on start and on every hint, and stops', async () => {
    const { c, load } = counter();
    const live = liveStore('state_changed', load);
    const stop = live.start();
    live.start(); // a second start does not subscribe again
    expect(fake.count('state_changed')).toBe(1);
    expect(live.subscribed).toBe(true);
    await settle();
    expect(c.reads).toBeGreaterThanOrEqual(1);

    const before = c.reads;
    c.value = 7;
    fake.emit('state_changed', { kind: 'settings', ids: [] });
    await settle();
    expect(c.reads).toBe(before + 1);
    expect(c.seen).toBe(7);

    stop();
    expect(live.subscribed).toBe(false);
    expect(fake.count('state_changed')).toBe(0);
    fake.emit('state_changed', { kind: 'settings', ids: [] });
    await settle();
    expect(c.reads).toBe(before + 1);

    live.start(); // and starts again
    expect(fake.count('state_changed')).toBe(1);
    live.stop();
  });

  it('coalesces a burst of hints into at most one more read that sees the last change', async () => {
    const { c, load } = counter();
    const live = liveStore('logs_appended', load);
    live.start();
    await settle();
    const before = c.reads;
    for (let i = 1; i <= 20; i++) {
      c.value = i;
      fake.emit('logs_appended', { count: 1 });
    }
    await settle();
    expect(c.reads - before).toBeGreaterThanOrEqual(1);
    expect(c.reads - before).toBeLessThanOrEqual(2);
    expect(c.seen).toBe(20);
    live.stop();
  });

  it('refresh coalesces with the reads of hints', async () => {
    const { c, load } = counter();
    const live = liveStore('approvals_changed', load, { readOnStart: false });
    live.start();
    const a = live.refresh();
    fake.emit('approvals_changed', { kind: 'pending', id: 'appr_1', pending: 1 });
    const b = live.refresh();
    await Promise.all([a, b]);
    expect(c.reads).toBe(2); // the first read, then one more for what came during it
    live.stop();
  });

  it('reads only for the hints it accepts', async () => {
    const { c, load } = counter();
    let root = '/repo';
    const live = liveStore<{ root: string; count: number }>('git_changed', load, { accept: (p) => !!p && p.root === root });
    live.start();
    await settle();
    const before = c.reads;
    fake.emit('git_changed', { root: '/other', count: 1 });
    fake.emit('git_changed', null);
    await settle();
    expect(c.reads).toBe(before);
    fake.emit('git_changed', { root: '/repo', count: 1 });
    await settle();
    expect(c.reads).toBe(before + 1);
    root = '/other'; // accept is asked on each hint
    fake.emit('git_changed', { root: '/other', count: 1 });
    await settle();
    expect(c.reads).toBe(before + 2);
    live.stop();
  });

  it('hands hints to onHint instead of re-reading', async () => {
    const { c, load } = counter();
    const got: unknown[] = [];
    const live = liveStore('agent_changed', load, { onHint: (p) => got.push(p), readOnStart: false });
    live.start();
    fake.emit('agent_changed', { sessionId: 'sess_1', kind: 'transcript' });
    await settle();
    expect(got).toEqual([{ sessionId: 'sess_1', kind: 'transcript' }]);
    expect(c.reads).toBe(0);
    await live.refresh(); // the store re-reads when it decides to
    expect(c.reads).toBe(1);
    live.stop();
  });

  it('reports a failed subscription, still reads, and tries again on the next start', async () => {
    const { c, load } = counter();
    const errors: unknown[] = [];
    const live = liveStore('process_changed', load, { onError: (err) => errors.push(err) });
    fake.failSubscribe = true;
    live.start();
    await settle();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain('no Wails runtime');
    expect(live.subscribed).toBe(false);
    expect(c.reads).toBe(1);

    fake.failSubscribe = false;
    live.start();
    expect(live.subscribed).toBe(true);
    expect(fake.count('process_changed')).toBe(1);
    live.stop();
  });

  it('does not read on start when told not to', async () => {
    const { c, load } = counter();
    const live = liveStore('git_changed', load, { readOnStart: false });
    live.start();
    await settle();
    expect(c.reads).toBe(0);
    fake.emit('git_changed', { root: '/repo', count: 1 });
    await settle();
    expect(c.reads).toBe(1);
    live.stop();
  });

  it('re-reads on the fallback timer while started, with one timer however often started', async () => {
    vi.useFakeTimers();
    const reads = { n: 0 };
    const live = liveStore('process_changed', async () => void reads.n++, { fallbackMs: 1000 });
    live.start();
    live.start();
    await vi.advanceTimersByTimeAsync(10);
    const afterStart = reads.n;
    await vi.advanceTimersByTimeAsync(3000);
    expect(reads.n - afterStart).toBe(3);
    live.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(reads.n - afterStart).toBe(3);
  });
});

describe('LiveModel', () => {
  it("forwards start, stop and refresh to the store's liveStore", async () => {
    const { c, load } = counter();
    class Model extends LiveModel {
      protected readonly hints = liveStore('approvals_changed', load);
    }
    const m = new Model();
    const stop = m.start();
    await settle();
    expect(fake.count('approvals_changed')).toBe(1);
    expect(c.reads).toBe(1);
    await m.refresh();
    expect(c.reads).toBe(2);
    stop();
    expect(fake.count('approvals_changed')).toBe(0);
    m.start();
    m.stop();
    expect(fake.count('approvals_changed')).toBe(0);
  });
});

describe('liveStore follow', () => {
  it('marks the store live while it hears hints, and not once stopped or when subscribing fails', async () => {
    const { load } = counter();
    const marks: boolean[] = [];
    const stop = liveStore('logs_appended', load).follow((live) => marks.push(live));
    expect(fake.count('logs_appended')).toBe(1);
    stop();
    expect(fake.count('logs_appended')).toBe(0);
    fake.failSubscribe = true;
    liveStore('logs_appended', load).follow((live) => marks.push(live));
    await settle();
    expect(marks).toEqual([true, false, false]);
  });
});
