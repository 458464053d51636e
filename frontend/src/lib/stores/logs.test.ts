import { beforeEach, describe, expect, it, vi } from 'vitest';

const fake = vi.hoisted(() => {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const db = { entries: [] as { id: string; message: string }[], reads: 0, args: [] as unknown[] };
  return {
    db,
    listeners,
    emit(topic: string, payload: unknown) {
      for (const fn of [...(listeners.get(topic) ?? [])]) fn(payload);
    },
    async call(tool: string, args: unknown) {
      if (tool !== 'app_get_logs') return { ok: false, error: { code: 'UNKNOWN_TOOL', message: tool } };
      db.reads++;
      db.args.push(args);
      await new Promise((r) => setTimeout(r, 1));
      return { ok: true, content: structuredClone(db.entries) };
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

const { LogsStore } = await import('./logs.svelte');
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 2));
};

beforeEach(() => {
  fake.db.entries = [];
  fake.db.reads = 0;
  fake.db.args = [];
  fake.listeners.clear();
});

describe('LogsStore', () => {
  it('follows logs_appended hints and stops when asked', async () => {
    const s = new LogsStore();
    const stop = s.follow();
    await settle();
    expect(s.live).toBe(true);
    expect(fake.db.reads).toBe(1);

    fake.db.entries.push({ id: 'log_1', message: 'tool socket listening' });
    fake.emit('logs_appended', { count: 1 });
    await settle();
    expect(s.entries.map((e) => e.message)).toEqual(['tool socket listening']);

    stop();
    expect(s.live).toBe(false);
    fake.emit('logs_appended', { count: 1 });
    await settle();
    expect(fake.db.reads).toBe(2);
  });

  it('coalesces a burst of hints into at most one more read', async () => {
    const s = new LogsStore();
    s.follow();
    await settle();
    fake.db.reads = 0;
    for (let i = 0; i < 20; i++) fake.emit('logs_appended', { count: 1 });
    await settle();
    expect(fake.db.reads).toBeGreaterThanOrEqual(1);
    expect(fake.db.reads).toBeLessThanOrEqual(2);
  });

  it('passes the level filter', async () => {
    const s = new LogsStore();
    s.level = 'warn';
    await s.refresh();
    expect(fake.db.args.at(-1)).toEqual({ limit: 300, level: 'warn' });
  });
});
