// @vitest-environment happy-dom
// The drawer's State panel (issue 18): app_get_state as a collapsible JSON
// tree, re-read on every state_changed hint, with expand/collapse all and
// a copy of any node's value.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';

const fake = vi.hoisted(() => ({
  state: {} as Record<string, unknown>,
  hints: new Map<string, Set<(p: unknown) => void>>(),
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    call: vi.fn(async (tool: string) => {
      if (tool === 'app_get_state') return { ok: true, content: JSON.parse(JSON.stringify(fake.state)) };
      return { ok: false, error: { code: 'TOOL_NOT_FOUND', message: tool } };
    }),
    subscribe: vi.fn((topic: string, fn: (p: unknown) => void) => {
      let set = fake.hints.get(topic);
      if (!set) fake.hints.set(topic, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    }),
  };
});

const { default: StatePanel } = await import('./StatePanel.svelte');

const settle = async () => {
  for (let i = 0; i < 8; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const tree = () => document.querySelector('[role="tree"][aria-label="App state"]') as HTMLElement;
const items = () => [...tree().querySelectorAll('[role="treeitem"]')] as HTMLElement[];
const labels = () => items().map((i) => i.getAttribute('aria-label'));
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === name || b.getAttribute('aria-label') === name) as HTMLButtonElement | undefined;

let app: ReturnType<typeof mount> | undefined;
let written: string[] = [];
beforeEach(async () => {
  document.body.innerHTML = '';
  written = [];
  vi.stubGlobal('navigator', { clipboard: { writeText: async (t: string) => void written.push(t) } });
  fake.state = { version: 1, activeSpaceId: 'space_1', spaces: [{ id: 'space_1', name: 'shop', layout: { split: false } }], settings: { debugMode: false } };
  app = mount(StatePanel, { target: document.body });
  await settle();
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
  vi.unstubAllGlobals();
});

describe('StatePanel', () => {
  it('shows the state as a tree with the first level open', () => {
    expect(labels()).toEqual(['state', 'version', 'activeSpaceId', 'spaces', 'settings']);
    expect(items()[0].getAttribute('aria-expanded')).toBe('true');
    expect(items()[3].getAttribute('aria-expanded')).toBe('false');
    expect(items()[1].textContent).toContain('1');
    expect(items()[2].textContent).toContain('"space_1"');
  });

  it('expands and collapses a node, and all of them', async () => {
    button('Expand spaces')!.click();
    flushSync();
    expect(labels()).toEqual(['state', 'version', 'activeSpaceId', 'spaces', '0', 'settings']);
    button('Expand all')!.click();
    flushSync();
    expect(labels()).toEqual(['state', 'version', 'activeSpaceId', 'spaces', '0', 'id', 'name', 'layout', 'split', 'settings', 'debugMode']);
    button('Collapse all')!.click();
    flushSync();
    expect(labels()).toEqual(['state', 'version', 'activeSpaceId', 'spaces', 'settings']);
  });

  it('copies a node\'s value as JSON', async () => {
    button('Expand all')!.click();
    flushSync();
    button('Copy value of $.spaces[0].layout')!.click();
    button('Copy value of $.spaces[0].name')!.click();
    await settle();
    expect(written).toEqual(['{\n  "split": false\n}', 'shop']);
  });

  it('follows state_changed: a change shows without a click, and open nodes stay open', async () => {
    button('Expand spaces')!.click();
    flushSync();
    fake.state.spaces = [...(fake.state.spaces as object[]), { id: 'space_2', name: 'blog' }];
    for (const fn of fake.hints.get('state_changed') ?? []) fn({ kind: 'spaces', ids: ['space_2'] });
    await settle();
    expect(labels()).toEqual(['state', 'version', 'activeSpaceId', 'spaces', '0', '1', 'settings']);
  });
});
