// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { PaneItem } from '../../stores/appState.svelte';

// The permanent ways into the Git panel (the branch pill's menu, the tab
// strip) and the branch filter's Enter; git tools answer from a tiny model.
const fake = vi.hoisted(() => ({
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  branches: [
    { name: 'main', current: true, upstream: '', commit: 'a', subject: 'first' },
    { name: 'feature/login', current: false, upstream: '', commit: 'b', subject: 'wip' },
    { name: 'fix-typo', current: false, upstream: '', commit: 'c', subject: 'typo' },
  ],
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    call: vi.fn(async (tool: string, args: Record<string, unknown> = {}) => {
      fake.calls.push({ tool, args });
      switch (tool) {
        case 'git_status':
          return { ok: true, content: { isRepo: true, root: '/repo', branch: fake.branches.find((b) => b.current)!.name, clean: true, watched: true } };
        case 'git_diff':
          return { ok: true, content: { isRepo: true, root: '/repo', scope: 'all', files: [], totalAdditions: 0, totalDeletions: 0 } };
        case 'git_branch':
          if (args.action === 'switch') for (const b of fake.branches) b.current = b.name === args.name;
          return { ok: true, content: structuredClone(fake.branches) };
        case 'app_get_state':
          return { ok: false, error: { code: 'TOOL_FAILED', message: 'not here' } };
        default:
          return { ok: true, content: {} };
      }
    }),
    listTools: vi.fn(async () => []),
    subscribe: vi.fn(() => () => {}),
  };
});

const { default: BranchSwitcher } = await import('./BranchSwitcher.svelte');
const { default: TabStrip } = await import('../shell/TabStrip.svelte');
const { git } = await import('../../stores/git.svelte');

const settle = async () => {
  for (let i = 0; i < 8; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === name || b.getAttribute('aria-label') === name) as HTMLButtonElement | undefined;

let app: ReturnType<typeof mount> | undefined;
beforeEach(async () => {
  fake.calls = [];
  for (const b of fake.branches) b.current = b.name === 'main';
  document.body.innerHTML = '';
  git.follow('/repo', 0);
  await git.refresh();
  await settle();
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
  vi.restoreAllMocks();
});

describe('ways into the Git panel', () => {
  it('the branch pill menu has "Open Git panel"', async () => {
    const open = vi.spyOn(git, 'openGitTab').mockResolvedValue();
    app = mount(BranchSwitcher, { target: document.body });
    await settle();
    button('Branch main')!.click();
    await settle();
    const item = [...document.querySelectorAll('[aria-label="Branches"] button')].find((b) => b.textContent?.includes('Open Git panel')) as HTMLButtonElement;
    item.click();
    await settle();
    expect(open).toHaveBeenCalledTimes(1);
    expect(document.querySelector('[role="dialog"][aria-label="Branches"]')).toBeNull();
  });

  it('the tab strip has a Git panel button in a repository', async () => {
    const open = vi.spyOn(git, 'openGitTab').mockResolvedValue();
    const items: PaneItem[] = [];
    app = mount(TabStrip, { target: document.body, props: { pane: 'primary', items, shownId: '' } });
    await settle();
    button('Open the Git panel')!.click();
    expect(open).toHaveBeenCalledTimes(1);
  });
});

describe('branch filter', () => {
  it('Enter switches to the only match, and does nothing with several', async () => {
    app = mount(BranchSwitcher, { target: document.body });
    await settle();
    button('Branch main')!.click();
    await settle();
    const input = document.querySelector('input[aria-label="Filter branches"]') as HTMLInputElement;
    const type = (v: string) => {
      input.value = v;
      input.dispatchEvent(new Event('input'));
      flushSync();
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    };
    type('f'); // feature/login and fix-typo
    await settle();
    expect(fake.calls.filter((c) => c.args.action === 'switch')).toEqual([]);
    type('login');
    await settle();
    expect(fake.calls.filter((c) => c.args.action === 'switch').map((c) => c.args.name)).toEqual(['feature/login']);
    expect(document.querySelector('[role="dialog"][aria-label="Branches"]')).toBeNull();
  });
});
