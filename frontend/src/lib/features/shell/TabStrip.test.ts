// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { BrowserTab, WorkspaceTab } from '../../bridge';
import type { PaneItem } from '../../stores/appState.svelte';

// The bridge stand-in records tool calls and answers them with ok.
const fake = vi.hoisted(() => ({ calls: [] as { tool: string; args: Record<string, unknown> }[], tools: [] as string[] }));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    call: vi.fn(async (tool: string, args: Record<string, unknown> = {}) => {
      fake.calls.push({ tool, args });
      return tool === 'app_get_state' ? { ok: false, error: { code: 'TOOL_FAILED', message: 'not here' } } : { ok: true, content: { closed: true } };
    }),
    listTools: vi.fn(async () => fake.tools.map((name) => ({ name, description: '', inputSchema: {}, capabilities: [] }))),
    subscribe: vi.fn(() => () => {}),
  };
});

const { default: TabStrip } = await import('./TabStrip.svelte');
const { tools } = await import('../../stores/tools.svelte');
const { appState } = await import('../../stores/appState.svelte');

const wtab = (id: string, kind: WorkspaceTab['kind'], title: string): PaneItem => ({
  id, browser: false, title, detail: '/p', pane: 'primary',
  tab: { id, spaceId: 's', kind, title, cwd: '/p', active: false, pane: 'primary', terminalId: null, activeFilePath: null, openFilePaths: [], selectedGitFilePath: null, createdAt: 1 },
});
const btab: PaneItem = {
  id: 'btab_1', browser: true, title: 'Shop', detail: 'http://127.0.0.1:5173/', pane: 'primary',
  tab: { id: 'btab_1', spaceId: 's', url: 'http://127.0.0.1:5173/', title: 'Shop', active: true, pane: 'primary' } as BrowserTab,
};
const items = [btab, wtab('wtab_1', 'editor', 'Editor'), wtab('wtab_2', 'terminal', 'Shell')];

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const tabs = () => [...document.querySelectorAll('[role="tab"]')] as HTMLButtonElement[];
const used = () => fake.calls.filter((c) => c.tool !== 'app_get_state');

let app: ReturnType<typeof mount> | undefined;
async function render() {
  app = mount(TabStrip, { target: document.body, props: { pane: 'primary', items, shownId: 'wtab_1' } });
  await settle();
}
beforeEach(async () => {
  fake.calls = [];
  fake.tools = [];
  document.body.innerHTML = '';
  await tools.refresh();
});
afterEach(() => {
  if (app) unmount(app);
});

describe('TabStrip', () => {
  it('shows browser tabs first, marks the shown tab and names the strip after its pane', async () => {
    await render();
    expect(document.querySelector('[role="tablist"]')?.getAttribute('aria-label')).toBe('Primary pane tabs');
    expect(tabs().map((t) => t.textContent?.trim().replace(/\s+/g, ' '))).toEqual(['◍ Shop', '✎ Editor', '›_ Shell']);
    expect(tabs().map((t) => t.getAttribute('aria-selected'))).toEqual(['false', 'true', 'false']);
  });

  it('closes browser tabs with close_browser_tab', async () => {
    await render();
    const closes = () => [...document.querySelectorAll('button[aria-label^="Close "]')].map((b) => b.getAttribute('aria-label'));
    expect(closes()).toEqual(['Close Shop', 'Close Editor', 'Close Shell']);
    (document.querySelector('button[aria-label="Close Shop"]') as HTMLButtonElement).click();
    await settle();
    expect(used().map((c) => [c.tool, c.args])).toEqual([['close_browser_tab', { tabId: 'btab_1' }]]);
  });

  it('shows a browser tab\'s favicon, a glyph when it fails or is unusable, and a spinner while loading', async () => {
    const b = (id: string, over: Partial<BrowserTab>): PaneItem => ({ ...btab, id, title: id, tab: { ...(btab.tab as BrowserTab), id, ...over } });
    const list = [
      b('icon', { favicon: 'http://127.0.0.1:5173/favicon.png', loadState: 'complete' }),
      b('loading', { favicon: 'http://127.0.0.1:5173/favicon.png', loadState: 'loading' }),
      b('none', { loadState: 'complete' }),
      b('unsafe', { favicon: 'javascript:alert(1)', loadState: 'complete' }),
    ];
    app = mount(TabStrip, { target: document.body, props: { pane: 'primary', items: list, shownId: 'icon' } });
    await settle();
    const shape = () =>
      tabs().map((t) => (t.querySelector('img.favicon') ? `img:${t.querySelector('img')!.getAttribute('src')}` : t.querySelector('[aria-label="Loading"]') ? 'spinner' : t.querySelector('.icon')?.textContent));
    expect(shape()).toEqual(['img:http://127.0.0.1:5173/favicon.png', 'spinner', '◍', '◍']);
    tabs()[0].querySelector('img')!.dispatchEvent(new Event('error'));
    await settle();
    expect(shape()).toEqual(['◍', 'spinner', '◍', '◍']);
  });

  it('opens a browser tab from the strip of the pane that can hold them', async () => {
    await render();
    (document.querySelector('button[aria-label="New browser tab"]') as HTMLButtonElement).click();
    await settle();
    expect(used().map((c) => c.tool)).toEqual(['open_browser_tab']);
    expect(used()[0].args).toEqual({ url: 'about:blank' });
  });

  it('shows, closes and moves tabs through tools', async () => {
    await render();
    tabs()[2].click();
    tabs()[0].click();
    (document.querySelector('button[aria-label="Close Editor"]') as HTMLButtonElement).click();
    tabs()[2].dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', altKey: true, shiftKey: true, bubbles: true }));
    tabs()[1].dispatchEvent(new KeyboardEvent('keydown', { key: 'Delete', bubbles: true }));
    (document.querySelector('button[aria-label="New editor tab in the primary pane"]') as HTMLButtonElement).click();
    await settle();
    expect(used().map((c) => [c.tool, c.args])).toEqual([
      ['focus_workspace_tab', { tabId: 'wtab_2' }],
      ['move_tab', { tabId: 'btab_1', pane: 'primary' }], // showing a browser tab
      ['close_workspace_tab', { tabId: 'wtab_1' }],
      ['move_tab', { tabId: 'wtab_2', pane: 'secondary' }], // Alt+Shift+→
      ['close_workspace_tab', { tabId: 'wtab_1' }], // Delete
      ['open_workspace_tab', { title: 'Editor', cwd: '~', kind: 'editor', pane: 'primary' }],
    ]);
  });

  it("names a plugin tab after its plugin, with the puzzle piece instead of the page's favicon", async () => {
    const web = btab.tab as BrowserTab;
    appState.state = {
      spaces: [{ id: 's', name: 'S', color: '#6366f1', projectId: null, createdAt: 1, updatedAt: 1 }],
      activeSpaceId: 's',
      workspaceTabs: [],
      browserTabs: [
        { ...web, mode: 'web', createdAt: 1 },
        // pluginId comes with the plugin tab layer (BrowserTab.PluginID).
        Object.assign({ ...web, id: 'btab_2', url: 'http://x.plugins.localhost:4100/index.html', title: 'index.html', favicon: 'http://x.plugins.localhost:4100/f.png', mode: 'plugin', contextKey: 'plugin:com.example.board', createdAt: 2 }, { pluginId: 'com.example.board' }),
        // A tab of a plugin uninstalled meanwhile is named by its id, never by its page.
        { ...web, id: 'btab_3', title: 'Old page', mode: 'plugin', contextKey: 'plugin:com.example.gone', createdAt: 3 },
      ],
      plugins: [{ id: 'com.example.board', name: 'Deploy board' }],
      settings: null,
    } as unknown as NonNullable<typeof appState.state>;
    app = mount(TabStrip, { target: document.body, props: { pane: 'primary', items: appState.primaryItems, shownId: 'btab_2' } });
    await settle();
    expect(tabs().map((t) => t.textContent?.trim())).toEqual(['◍ Shop', 'Deploy board', 'com.example.gone']);
    expect(tabs().map((t) => !!t.querySelector('[data-icon="plugin"] svg'))).toEqual([false, true, true]);
    expect(tabs()[1].querySelector('img')).toBeNull();
    expect(document.querySelector('button[aria-label="Close Deploy board"]')).not.toBeNull();
    expect(document.querySelector('[data-strip-tab="btab_2"]')?.getAttribute('title')).toMatch(/^Plugin Deploy board — http:\/\/x\.plugins\.localhost/);
    appState.state = null;
  });

  describe('overflow', () => {
    // happy-dom lays nothing out: the strip's scroller says how wide its tabs are.
    let restore: (() => void) | undefined;
    function sizes(scrollWidth: number, clientWidth: number) {
      const proto = HTMLElement.prototype;
      const sw = Object.getOwnPropertyDescriptor(proto, 'scrollWidth');
      const cw = Object.getOwnPropertyDescriptor(proto, 'clientWidth');
      Object.defineProperty(proto, 'scrollWidth', { configurable: true, get() { return (this as HTMLElement).classList.contains('tabs') ? scrollWidth : 0; } });
      Object.defineProperty(proto, 'clientWidth', { configurable: true, get() { return (this as HTMLElement).classList.contains('tabs') ? clientWidth : 0; } });
      restore = () => {
        if (sw) Object.defineProperty(proto, 'scrollWidth', sw);
        else delete (proto as { scrollWidth?: number }).scrollWidth;
        if (cw) Object.defineProperty(proto, 'clientWidth', cw);
        else delete (proto as { clientWidth?: number }).clientWidth;
      };
    }
    afterEach(() => restore?.());
    const allTabs = () => document.querySelector('button[aria-label="All tabs of the primary pane"]') as HTMLButtonElement | null;

    it('keeps the new-tab buttons outside the scrolling tabs, and offers no menu when the tabs fit', async () => {
      sizes(300, 600);
      await render();
      const scroller = document.querySelector('[role="tablist"] .tabs')!;
      expect(scroller.querySelectorAll('[role="tab"]').length).toBe(3);
      expect(scroller.querySelector('button[aria-label^="New "]')).toBeNull();
      expect(document.querySelectorAll('.actions button[aria-label^="New "]').length).toBe(4);
      expect(allTabs()).toBeNull();
    });

    it('lists every tab in a menu when they overflow, and picking one shows it', async () => {
      sizes(900, 300);
      await render();
      expect(allTabs()).not.toBeNull();
      expect(allTabs()!.getAttribute('aria-expanded')).toBe('false');
      allTabs()!.click();
      await settle();
      const entries = [...document.querySelectorAll('[role="menu"] [role="menuitemradio"]')] as HTMLButtonElement[];
      expect(entries.map((e) => e.textContent?.trim().replace(/\s+/g, ' '))).toEqual(['◍ Shop', '✎ Editor', '›_ Shell']);
      expect(entries.map((e) => e.getAttribute('aria-checked'))).toEqual(['false', 'true', 'false']);
      entries[2].click();
      await settle();
      expect(document.querySelector('[role="menu"]')).toBeNull();
      expect(used().map((c) => [c.tool, c.args])).toEqual([['focus_workspace_tab', { tabId: 'wtab_2' }]]);
    });

    it('works from the keyboard: arrows move, Esc closes and gives the focus back', async () => {
      sizes(900, 300);
      await render();
      allTabs()!.click();
      await settle();
      const menu = document.querySelector('[role="menu"]') as HTMLElement;
      expect((document.activeElement as HTMLElement).getAttribute('data-menu-tab')).toBe('wtab_1'); // the shown one
      menu.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
      expect((document.activeElement as HTMLElement).getAttribute('data-menu-tab')).toBe('wtab_2');
      menu.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
      await settle();
      expect(document.querySelector('[role="menu"]')).toBeNull();
      expect(document.activeElement).toBe(allTabs());
      expect(used()).toEqual([]);
    });
  });
});
