import { describe, expect, it, vi } from 'vitest';
import { toasts } from './toasts.svelte';

describe('toasts.show with an action', () => {
  it('keeps the action on the toast; running it dismisses the toast once', async () => {
    toasts.clear();
    const run = vi.fn(async () => {});
    const id = toasts.show('Discarded changes in a.txt', { action: { label: 'Undo', run } });
    const t = toasts.list.find((x) => x.id === id)!;
    expect(t.kind).toBe('info');
    expect(t.action?.label).toBe('Undo');
    await toasts.runAction(id);
    await toasts.runAction(id);
    expect(run).toHaveBeenCalledTimes(1);
    expect(toasts.list.some((x) => x.id === id)).toBe(false);
  });
});
