// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { AppState } from '../../bridge';

// The bridge stand-in answers app_get_state with two spaces and records the other calls.
const fake = vi.hoisted(() => ({ calls: [] as { tool: string; args: Record<string, unknown> }[], state: null as unknown }));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    call: vi.fn(async (tool: string, args: Record<string, unknown> = {}) => {
      if (tool === 'app_get_state') return { ok: true, content: structuredClone(fake.state) };
      fake.calls.push({ tool, args });
      return { ok: true, content: { id: 'wtab_new', spaceId: 'space_a', kind: args.kind ?? 'editor', title: 'T', cwd: '/work/app', pane: 'primary', createdAt: 9 } };
    }),
    subscribe: vi.fn(() => () => {}),
  };
});

const { default: Palette } = await import('./Palette.svelte');
const { palette } = await import('./palette.svelte');
const { appState } = await import('../../stores/appState.svelte');
const { projects } = await import('../../stores/projects.svelte');
const { ui } = await import('../../stores/ui.svelte');
const { rankByLabel } = await import('./rank');

const layout = { split: false, splitRatio: 0.5, focusedPane: 'primary', primaryTabId: '', secondaryTabId: '', drawerOpen: false, drawerHeight: 260 };
const state = {
  version: 2,
  spaces: [
    { id: 'space_a', name: 'app', color: '#6366f1', cwd: '/work/app', projectId: null, layout, createdAt: 1, updatedAt: 1 },
    { id: 'space_b', name: 'todo-api', color: '#10b981', cwd: '/work/todo-api', projectId: null, layout, createdAt: 2, updatedAt: 2 },
  ],
  activeSpaceId: 'space_a',
  browserTabs: [],
  workspaceTabs: [],
  projects: [],
  settings: {},
} as unknown as AppState;

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const options = () => [...document.querySelectorAll('[role="option"]')] as HTMLElement[];
const labels = () => options().map((o) => o.querySelector('.label')?.textContent ?? '');
const input = () => document.querySelector('input[aria-label="Type a command"]') as HTMLInputElement;
async function type(text: string) {
  input().value = text;
  input().dispatchEvent(new Event('input', { bubbles: true }));
  await settle();
}
async function press(key: string) {
  input().dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  await settle();
}

let app: ReturnType<typeof mount> | undefined;
beforeEach(async () => {
  fake.calls = [];
  fake.state = state;
  document.body.innerHTML = '';
  await appState.refresh();
  projects.list = [
    { id: 'p1', name: 'old-site', cwd: '/work/old-site', openedAt: 10 },
    { id: 'p2', name: 'todo-api', cwd: '/work/todo-api', openedAt: 30 },
    { id: 'p3', name: 'app', cwd: '/work/app', openedAt: 40 },
  ] as unknown as typeof projects.list;
  ui.view = 'workspace';
  app = mount(Palette, { target: document.body });
  palette.show();
  await settle();
});
afterEach(() => {
  palette.close();
  flushSync();
  if (app) unmount(app);
  app = undefined;
});

describe('command palette', () => {
  it('lists every kind of action, each with its shortcut, and takes the focus', () => {
    const all = labels();
    for (const want of [
      'New editor tab',
      'New terminal',
      'New agent tab',
      'New browser tab',
      'Split the workspace',
      'Show the drawer',
      'Drawer: Show Output',
      'Drawer: Show Processes',
      'Drawer: Show Console',
      'Drawer: Show Network',
      'Drawer: Show Logs',
      'Drawer: Show Tools',
      'Drawer: Show Audit',
      'Drawer: Show State',
      'Spaces: New space',
      'Spaces: Open folder as a space…',
      'Spaces: Switch to todo-api',
      'Git: Open the Git panel',
      'Open Settings',
      'Settings: General',
      'Settings: Agent',
      'Settings: Plugins',
      'Settings: Storage',
      'Open recent: todo-api',
      'Open recent: old-site',
    ]) {
      expect(all).toContain(want);
    }
    expect(all).not.toContain('Spaces: Switch to app'); // the shown space
    expect(all).not.toContain('Open recent: app'); // open already
    // Recent folders newest first.
    expect(all.indexOf('Open recent: todo-api')).toBeLessThan(all.indexOf('Open recent: old-site'));
    const keysOf = (label: string) => options()[labels().indexOf(label)].querySelector('kbd')?.textContent;
    expect(keysOf('Show the drawer')).toBe('Ctrl+J');
    expect(keysOf('New browser tab')).toBe('Ctrl+T');
    expect(keysOf('Split the workspace')).toBe('Ctrl+\\');
    expect(keysOf('Open Settings')).toBe('Ctrl+,');
    expect(keysOf('Close the focused tab')).toBe('Ctrl+W');
    expect(document.activeElement).toBe(input());
  });

  it('ranks fuzzily as you type', async () => {
    await type('nterm');
    expect(labels()[0]).toBe('New terminal');
    await type('drawer logs');
    expect(labels()[0]).toBe('Drawer: Show Logs');
    await type('sw todo');
    expect(labels()[0]).toBe('Spaces: Switch to todo-api');
    await type('zzqx');
    expect(labels()).toEqual([]);
    expect(document.querySelector('.none')?.textContent).toContain('No command matches');
  });

  it('runs the chosen action with the keyboard and closes', async () => {
    await type('new');
    expect(labels().slice(0, 3).sort()).toEqual(['New agent tab', 'New editor tab', 'New terminal']);
    expect(options()[0].getAttribute('aria-selected')).toBe('true');
    const at = labels().indexOf('New terminal');
    for (let i = 0; i < at; i++) await press('ArrowDown');
    expect(options()[at].getAttribute('aria-selected')).toBe('true');
    await press('Enter');
    expect(palette.open).toBe(false);
    expect(document.querySelector('[role="dialog"]')).toBeNull();
    expect(fake.calls.map((c) => [c.tool, c.args.kind])).toEqual([['open_workspace_tab', 'terminal']]);
  });

  it('switches a space and toggles the drawer through the app\'s tools', async () => {
    await type('switch todo');
    await press('Enter');
    expect(fake.calls.map((c) => [c.tool, c.args])).toEqual([['switch_space', { spaceId: 'space_b' }]]);
    fake.calls = [];
    palette.show();
    await settle();
    await type('show the drawer');
    await press('Enter');
    expect(fake.calls.map((c) => c.tool)).toEqual(['set_space_layout']);
    expect(fake.calls[0].args).toMatchObject({ drawerOpen: true });
  });

  it('Esc closes without running anything, a click runs', async () => {
    await press('Escape');
    expect(palette.open).toBe(false);
    expect(fake.calls).toEqual([]);
    palette.show();
    await settle();
    await type('settings agent');
    options()[0].click();
    await settle();
    expect(ui.view).toBe('settings');
    expect(ui.settingsSection).toBe('agent');
  });
});

describe('rankByLabel', () => {
  const items = ['Toggle the drawer', 'Drawer: Show Tools', 'New terminal', 'Git: Open the Git panel'].map((label) => ({ label }));
  it('keeps the order for an empty query and ranks word starts first', () => {
    expect(rankByLabel('', items).map((r) => r.item.label)).toEqual(items.map((i) => i.label));
    expect(rankByLabel('tgdr', items)[0].item.label).toBe('Toggle the drawer');
    expect(rankByLabel('git', items).map((r) => r.item.label)).toEqual(['Git: Open the Git panel']);
    expect(rankByLabel('dst', items)[0].item.label).toBe('Drawer: Show Tools');
  });
});
