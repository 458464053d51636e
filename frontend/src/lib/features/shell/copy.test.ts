// @vitest-environment happy-dom
// Copy of the shell (issue 17): the status bar counts the shown space's
// tabs, counts say "1 …", and a space that already is a folder is not told
// to open a folder.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { AppState, BrowserTab, Space, WorkspaceTab } from '../../bridge';

const fake = vi.hoisted(() => ({ tools: [] as string[] }));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    call: vi.fn(async () => ({ ok: true, content: [] })),
    listTools: vi.fn(async () => fake.tools.map((name) => ({ name, description: '', inputSchema: {}, capabilities: [] }))),
    subscribe: vi.fn(() => () => {}),
  };
});

const { default: StatusBar } = await import('./StatusBar.svelte');
const { default: Pane } = await import('./Pane.svelte');
const { appState } = await import('../../stores/appState.svelte');
const { tools } = await import('../../stores/tools.svelte');
const { countOf } = await import('../../plural');

const layout = { split: false, splitRatio: 0.5, focusedPane: 'primary', drawerOpen: false, drawerHeight: 240 } as Space['layout'];
const space = (id: string, name: string, cwd?: string): Space => ({ id, name, color: '#888', cwd, projectId: null, layout, createdAt: 1, updatedAt: 1 });
const wtab = (id: string, spaceId: string): WorkspaceTab => ({
  id, spaceId, kind: 'editor', title: id, cwd: '/p', active: false, pane: 'primary', terminalId: null,
  activeFilePath: null, openFilePaths: [], selectedGitFilePath: null, createdAt: 1,
});
const btab = (id: string, spaceId: string) => ({ id, spaceId, url: 'http://127.0.0.1/', title: id, active: false, pane: 'primary' }) as BrowserTab;

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
let app: ReturnType<typeof mount> | undefined;
beforeEach(() => {
  document.body.innerHTML = '';
  fake.tools = [];
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
  appState.state = null;
});

describe('countOf', () => {
  it('says "1 line", "2 lines", "0 entries"', () => {
    expect(countOf(1, 'line')).toBe('1 line');
    expect(countOf(2, 'line')).toBe('2 lines');
    expect(countOf(0, 'entry', 'entries')).toBe('0 entries');
    expect(countOf(1200, 'file')).toBe('1200 files');
  });
});

describe('the status bar', () => {
  it("counts the shown space's tabs, not every space's", async () => {
    appState.state = {
      spaces: [space('a', 'todo-api', '/src/todo-api'), space('b', 'shop')],
      activeSpaceId: 'a',
      workspaceTabs: [wtab('w1', 'a'), wtab('w2', 'b'), wtab('w3', 'b')],
      browserTabs: [btab('b1', 'b')],
    } as unknown as AppState;
    fake.tools = ['app_ping'];
    await tools.refresh();
    app = mount(StatusBar, { target: document.body });
    await settle();
    const text = document.querySelector('footer')!.textContent!.replace(/\s+/g, ' ');
    expect(text).toContain('2 spaces · 1 tab · 0 browser tabs in todo-api');
    expect(text).toContain('1 tool');
    expect(text).not.toContain('1 tools');
  });
});

describe('an empty pane', () => {
  const render = async (cwd?: string) => {
    appState.state = { spaces: [space('a', 'todo-api', cwd)], activeSpaceId: 'a', workspaceTabs: [], browserTabs: [] } as unknown as AppState;
    app = mount(Pane, { target: document.body, props: { pane: 'primary' } });
    await settle();
    return document.querySelector('.empty')!.textContent!.replace(/\s+/g, ' ');
  };

  it('does not tell a space that is a folder to open a folder', async () => {
    const text = await render('/src/todo-api');
    expect(text).toContain('/src/todo-api');
    expect(text).not.toMatch(/open a project folder/i);
    expect(document.querySelector('[data-testid="empty-open-folder"]')).toBeNull();
  });

  it('offers a space without a folder to open one', async () => {
    const text = await render();
    expect(text).toMatch(/open a project folder/i);
    expect(document.querySelector('[data-testid="empty-open-folder"]')).not.toBeNull();
  });
});
