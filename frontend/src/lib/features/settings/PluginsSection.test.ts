// @vitest-environment happy-dom
// Settings → Plugins (issue 19): installed plugins with their source and
// state, install from a folder or an archive (the native dialogs) or a dev
// server URL, the requested grants as checkboxes approved as a subset,
// enable/disable with the backend's refusal shown next to the plugin, open
// (errors inline), uninstall behind the window's confirmation, and live
// updates on the "plugins" state hint.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { AppState } from '../../bridge';
import type { Plugin } from './plugins';

// An in-memory plugin service with the grant rules of the backend: approval
// is intersected with the request, enabling needs every requested API scope
// approved, and open_plugin_tab fails until the tab layer exists.
const fake = vi.hoisted(() => ({
  plugins: [] as Plugin[],
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  dialogs: [] as unknown[][],
  folder: '',
  archive: '',
  tabs: false,
  hints: [] as { topic: string; fn: (p: unknown) => void }[],
  state: null as unknown as AppState,
}));
const record = (id: string, name: string, source: Plugin['source'], over: Partial<Plugin> = {}): Plugin => ({
  id, name, version: '0.1.0', description: `${name}, a test plugin`, source, root: source.path ?? '', entry: 'index.html',
  requestedGrants: { capabilities: ['read-only', 'controls-browser'], apis: ['tools', 'storage'] },
  approvedGrants: { capabilities: [], apis: [] },
  enabled: false, installedAt: 1, updatedAt: 1, ...over,
});
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  const clone = <T,>(v: T): T => JSON.parse(JSON.stringify(v));
  const find = (id: unknown) => fake.plugins.find((p) => p.id === id);
  const notInstalled = (id: unknown) => ({ ok: false, error: { code: 'TOOL_FAILED', message: `Plugin ${id} is not installed (list_plugins lists the installed plugins)` } });
  return {
    ...real,
    call: vi.fn(async (tool: string, raw: Record<string, unknown> = {}) => {
      const args = clone(raw);
      fake.calls.push({ tool, args });
      switch (tool) {
        case 'list_plugins':
          return { ok: true, content: { plugins: clone(fake.plugins) } };
        case 'install_plugin': {
          let p: Plugin;
          if (args.directory) p = record('com.example.board', 'Deploy board', { kind: 'local-dir', path: String(args.directory) });
          else if (args.archive) p = record('com.example.packed', 'Packed', { kind: 'archive', path: String(args.archive) });
          else if (/^https?:\/\//.test(String(args.devUrl))) p = record('com.example.dev', 'Dev plugin', { kind: 'dev-url', url: String(args.devUrl) });
          else return { ok: false, error: { code: 'TOOL_FAILED', message: `dev URL ${args.devUrl}: only http and https URLs can be installed` } };
          fake.plugins = [...fake.plugins.filter((x) => x.id !== p.id), p];
          return { ok: true, content: { plugin: clone(p) } };
        }
        case 'approve_plugin_grants': {
          const p = find(args.pluginId);
          if (!p) return notInstalled(args.pluginId);
          const caps = (args.capabilities as string[]) ?? [];
          const apis = (args.apis as string[]) ?? [];
          p.approvedGrants = {
            capabilities: (p.requestedGrants.capabilities ?? []).filter((c) => caps.includes(c)),
            apis: (p.requestedGrants.apis ?? []).filter((a) => apis.includes(a)),
          };
          return { ok: true, content: { plugin: clone(p) } };
        }
        case 'set_plugin_enabled': {
          const p = find(args.pluginId);
          if (!p) return notInstalled(args.pluginId);
          const missing = (p.requestedGrants.apis ?? []).filter((a) => !(p.approvedGrants.apis ?? []).includes(a));
          if (args.enabled && missing.length) {
            return { ok: false, error: { code: 'PERMISSION_DENIED', message: `Cannot enable ${p.id}: unapproved API scopes [${missing.join(', ')}]` } };
          }
          p.enabled = args.enabled === true;
          return { ok: true, content: { plugin: clone(p) } };
        }
        case 'uninstall_plugin':
          if (!find(args.pluginId)) return notInstalled(args.pluginId);
          fake.plugins = fake.plugins.filter((p) => p.id !== args.pluginId);
          return { ok: true, content: { uninstalled: args.pluginId } };
        case 'open_plugin_tab': {
          if (!fake.tabs) return { ok: false, error: { code: 'TOOL_FAILED', message: 'plugin tabs are not available yet in this build of meith' } };
          const tab = { id: 'btab_9', spaceId: 's', url: 'http://x.plugins.localhost:4100/index.html', title: '', mode: 'plugin', pluginId: args.pluginId, contextKey: `plugin:${args.pluginId}`, pane: 'primary', createdAt: 9 };
          fake.state.browserTabs = [...fake.state.browserTabs, tab as never];
          return { ok: true, content: { tab } };
        }
        case 'app_get_state':
          return { ok: true, content: clone({ ...fake.state, plugins: fake.plugins }) };
        default:
          return { ok: true, content: {} };
      }
    }),
    openFolderDialog: vi.fn(async (...a: unknown[]) => {
      fake.dialogs.push(['folder', ...a]);
      return fake.folder;
    }),
    openFileDialog: vi.fn(async (...a: unknown[]) => {
      fake.dialogs.push(['file', ...a]);
      return fake.archive;
    }),
    subscribe: vi.fn((topic: string, fn: (p: unknown) => void) => {
      const h = { topic, fn };
      fake.hints.push(h);
      return () => (fake.hints = fake.hints.filter((x) => x !== h));
    }),
    listTools: vi.fn(async () => []),
    pendingApprovals: vi.fn(async () => []),
  };
});

const { default: PluginsSection } = await import('./PluginsSection.svelte');
const { default: ConfirmDialog } = await import('../../components/ConfirmDialog.svelte');
const { appState } = await import('../../stores/appState.svelte');
const { plugins } = await import('../../stores/plugins.svelte');
const { dialogs } = await import('../../stores/dialogs.svelte');
const { ui } = await import('../../stores/ui.svelte');
const { pluginErrorText, sourceText, withinRequest } = await import('./plugins');

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const button = (name: string, root: ParentNode = document) =>
  [...root.querySelectorAll('button')].find((b) => b.textContent?.trim() === name || b.getAttribute('aria-label') === name) as HTMLButtonElement;
const row = (id: string) => document.querySelector(`[data-plugin-id="${id}"]`) as HTMLElement;
const boxes = (id: string) =>
  [...row(id).querySelectorAll<HTMLInputElement>('input[type="checkbox"]')].map((b) => `${b.checked ? '[x]' : '[ ]'} ${b.closest('label')!.textContent!.trim().replace(/\s+/g, ' ')}`);
const check = (id: string, key: string, on: boolean) => {
  const label = [...row(id).querySelectorAll('label')].find((l) => l.querySelector('code')?.textContent === key)!;
  const box = label.querySelector('input') as HTMLInputElement;
  box.checked = on;
  box.dispatchEvent(new Event('change', { bubbles: true }));
  flushSync();
};
const dialog = () => document.querySelector('[role="alertdialog"]') as HTMLElement | null;
const emit = (topic: string, payload: unknown) => {
  for (const h of fake.hints.filter((x) => x.topic === topic)) h.fn(payload);
};
const calls = (tool: string) => fake.calls.filter((c) => c.tool === tool);

let app: ReturnType<typeof mount>[] = [];
beforeEach(async () => {
  document.body.innerHTML = '';
  fake.calls = [];
  fake.dialogs = [];
  fake.folder = '';
  fake.archive = '';
  fake.tabs = false;
  fake.plugins = [
    record('com.example.board', 'Deploy board', { kind: 'local-dir', path: '/home/me/deploy-board' }),
    record('com.example.notes', 'Notes', { kind: 'dev-url', url: 'http://localhost:5173' }, {
      version: '2.0.0',
      requestedGrants: { capabilities: ['read-only'], apis: ['tools'] },
      approvedGrants: { capabilities: ['read-only'], apis: ['tools'] },
      enabled: true,
    }),
  ];
  fake.state = { spaces: [{ id: 's', name: 'S', color: '#6366f1', projectId: null, createdAt: 1, updatedAt: 1 }], activeSpaceId: 's', workspaceTabs: [], browserTabs: [], projects: [], plugins: [] } as unknown as AppState;
  appState.state = JSON.parse(JSON.stringify(fake.state));
  ui.view = 'settings';
  app = [mount(PluginsSection, { target: document.body }), mount(ConfirmDialog, { target: document.body })];
  await settle();
});
afterEach(() => {
  dialogs.cancelAll();
  for (const a of app) unmount(a);
  app = [];
  plugins.list = [];
  appState.state = null;
});

describe('PluginsSection', () => {
  it('lists each plugin with its name, version, source, state and requested grants in plain words', () => {
    const board = row('com.example.board');
    expect(board.querySelector('strong')?.textContent).toBe('Deploy board');
    expect(board.textContent).toContain('0.1.0');
    expect(board.querySelector('[data-testid="plugin-source"]')?.textContent).toBe('Folder /home/me/deploy-board');
    expect(board.querySelector('[data-testid="plugin-state"]')?.textContent).toBe('Disabled');
    expect(boxes('com.example.board')).toEqual([
      '[ ] Reads your spaces, tabs, files and settings read-only',
      '[ ] Controls the browser controls-browser',
      "[ ] Calls meith's tools (within the capabilities approved) tools",
      '[ ] Sees your open browser and workspace tabs storage',
    ]);
    expect(button('Enable', board)).toBeTruthy();
    expect(button('Open', board).disabled).toBe(true); // disabled plugins do not open

    const notes = row('com.example.notes');
    expect(notes.querySelector('[data-testid="plugin-source"]')?.textContent).toBe('Dev server http://localhost:5173');
    expect(notes.querySelector('[data-testid="plugin-state"]')?.textContent).toBe('Enabled');
    expect(boxes('com.example.notes')).toEqual(['[x] Reads your spaces, tabs, files and settings read-only', "[x] Calls meith's tools (within the capabilities approved) tools"]);
    expect(button('Disable', notes)).toBeTruthy();
  });

  it('installs from a folder chosen in the native dialog, and does nothing when it is cancelled', async () => {
    fake.plugins = [];
    fake.folder = '';
    button('Install from folder…').click();
    await settle();
    expect(fake.dialogs).toEqual([['folder', 'Install plugin from folder']]);
    expect(calls('install_plugin')).toEqual([]);

    fake.folder = '/home/me/deploy-board';
    button('Install from folder…').click();
    await settle();
    expect(calls('install_plugin').map((c) => c.args)).toEqual([{ directory: '/home/me/deploy-board' }]);
    expect(document.querySelector('[data-testid="install-done"]')?.textContent).toContain('Installed Deploy board 0.1.0');
    expect(row('com.example.board').querySelector('[data-testid="plugin-source"]')?.textContent).toBe('Folder /home/me/deploy-board');
  });

  it('installs from an archive chosen in the native file dialog, offering plugin archives', async () => {
    fake.archive = '/home/me/Downloads/packed-0.1.0.tgz';
    button('Install from archive…').click();
    await settle();
    expect(fake.dialogs).toEqual([['file', 'Install plugin from archive', [{ displayName: 'Plugin archives (.tgz, .tar.gz, .tar)', pattern: '*.tgz;*.tar.gz;*.tar' }]]]);
    expect(calls('install_plugin').map((c) => c.args)).toEqual([{ archive: '/home/me/Downloads/packed-0.1.0.tgz' }]);
    expect(row('com.example.packed').querySelector('[data-testid="plugin-source"]')?.textContent).toBe('Archive /home/me/Downloads/packed-0.1.0.tgz');
  });

  it('installs from a dev server URL typed in the field, and shows a refusal next to the field', async () => {
    const input = document.querySelector('input[aria-label="Dev server URL"]') as HTMLInputElement;
    expect(button('Install from URL').disabled).toBe(true);
    input.value = 'ftp://example.com';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    button('Install from URL').click();
    await settle();
    expect(document.querySelector('[data-testid="install-error"]')?.textContent).toBe('Dev URL ftp://example.com: only http and https URLs can be installed');

    input.value = '  http://localhost:5174  ';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    button('Install from URL').click();
    await settle();
    expect(calls('install_plugin').map((c) => c.args)).toEqual([{ devUrl: 'ftp://example.com' }, { devUrl: 'http://localhost:5174' }]);
    expect(document.querySelector('[data-testid="install-error"]')).toBeNull();
    expect(row('com.example.dev').querySelector('[data-testid="plugin-source"]')?.textContent).toBe('Dev server http://localhost:5174');
    expect(input.value).toBe('');
  });

  it('approves the checked subset of what the plugin requested, and only once something changed', async () => {
    const board = row('com.example.board');
    expect(button('Approve', board).disabled).toBe(true);
    check('com.example.board', 'controls-browser', true);
    check('com.example.board', 'tools', true);
    expect(button('Approve', board).disabled).toBe(false);
    button('Approve', board).click();
    await settle();
    expect(calls('approve_plugin_grants').map((c) => c.args)).toEqual([{ pluginId: 'com.example.board', capabilities: ['controls-browser'], apis: ['tools'] }]);
    expect(boxes('com.example.board').map((b) => b.slice(0, 3))).toEqual(['[ ]', '[x]', '[x]', '[ ]']);
    expect(button('Approve', row('com.example.board')).disabled).toBe(true);
  });

  it("shows the backend's refusal to enable next to the plugin, and enables once every API scope is approved", async () => {
    button('Enable', row('com.example.board')).click();
    await settle();
    expect(calls('set_plugin_enabled').map((c) => c.args)).toEqual([{ pluginId: 'com.example.board', enabled: true }]);
    const error = row('com.example.board').querySelector('[role="alert"]');
    expect(error?.textContent).toBe('Cannot enable com.example.board: unapproved API scopes [tools, storage]');
    expect(row('com.example.notes').querySelector('[role="alert"]')).toBeNull(); // only next to that plugin

    check('com.example.board', 'tools', true);
    check('com.example.board', 'storage', true);
    button('Approve', row('com.example.board')).click();
    await settle();
    button('Enable', row('com.example.board')).click();
    await settle();
    expect(row('com.example.board').querySelector('[role="alert"]')).toBeNull();
    expect(row('com.example.board').querySelector('[data-testid="plugin-state"]')?.textContent).toBe('Enabled');
    expect(button('Open', row('com.example.board')).disabled).toBe(false);
  });

  it('shows an open failure next to the plugin; an opened tab shows in the workspace', async () => {
    button('Open', row('com.example.notes')).click();
    await settle();
    expect(calls('open_plugin_tab').map((c) => c.args)).toEqual([{ pluginId: 'com.example.notes', spaceId: 's' }]);
    expect(row('com.example.notes').querySelector('[role="alert"]')?.textContent).toBe('Plugin tabs are not available yet in this build of meith');
    expect(ui.view).toBe('settings');

    fake.tabs = true;
    button('Open', row('com.example.notes')).click();
    await settle();
    expect(row('com.example.notes').querySelector('[role="alert"]')).toBeNull();
    expect(ui.view).toBe('workspace');
    expect(appState.primaryItems.map((i) => i.title)).toEqual(['Notes']);
  });

  it('uninstalls only after the confirmation, then the plugin is gone', async () => {
    button('Uninstall Deploy board…').click();
    await settle();
    expect(dialog()?.textContent).toContain('Uninstall Deploy board?');
    expect(dialog()?.textContent).toContain('Its folder is left alone.');
    button('Cancel').click();
    await settle();
    expect(calls('uninstall_plugin')).toEqual([]);
    expect(row('com.example.board')).not.toBeNull();

    button('Uninstall Deploy board…').click();
    await settle();
    button('Uninstall').click();
    await settle();
    expect(calls('uninstall_plugin').map((c) => c.args)).toEqual([{ pluginId: 'com.example.board' }]);
    expect(row('com.example.board')).toBeNull();
    expect(row('com.example.notes')).not.toBeNull();
  });

  it('follows the "plugins" state hint: a change by another caller shows at once, other hints are ignored', async () => {
    const reads = () => calls('list_plugins').length;
    const before = reads();
    // The CLI approved and enabled the board.
    const board = fake.plugins.find((p) => p.id === 'com.example.board')!;
    board.approvedGrants = { capabilities: ['read-only'], apis: ['tools', 'storage'] };
    board.enabled = true;
    emit('state_changed', { kind: 'tabs' });
    await settle();
    expect(reads()).toBe(before);
    expect(row('com.example.board').querySelector('[data-testid="plugin-state"]')?.textContent).toBe('Disabled');

    emit('state_changed', { kind: 'plugins', ids: ['com.example.board'] });
    await settle();
    expect(reads()).toBe(before + 1);
    expect(row('com.example.board').querySelector('[data-testid="plugin-state"]')?.textContent).toBe('Enabled');
    expect(boxes('com.example.board').map((b) => b.slice(0, 3))).toEqual(['[x]', '[ ]', '[x]', '[x]']);
  });
});

describe('plugin words', () => {
  it('says where a plugin came from', () => {
    const p = (source: Plugin['source']) => ({ source, root: '/r' }) as Plugin;
    expect(sourceText(p({ kind: 'local-dir', path: '/home/me/x' }))).toBe('Folder /home/me/x');
    expect(sourceText(p({ kind: 'archive', path: '/tmp/x.tgz' }))).toBe('Archive /tmp/x.tgz');
    expect(sourceText(p({ kind: 'dev-url', url: 'http://localhost:5173/' }))).toBe('Dev server http://localhost:5173/');
  });

  it('never approves more than was requested', () => {
    const p = record('a.b', 'A', { kind: 'local-dir', path: '/a' });
    expect(withinRequest(p, { capabilities: ['destructive', 'controls-browser'], apis: ['ai', 'tools'] })).toEqual({ capabilities: ['controls-browser'], apis: ['tools'] });
  });

  it("words a refusal without the CLI's tool hints", () => {
    expect(pluginErrorText({ error: { code: 'TOOL_FAILED', message: 'Plugin a.b is not enabled: approve its API scopes and enable it first (set_plugin_enabled)' } })).toBe(
      'Plugin a.b is not enabled: approve its API scopes and enable it first',
    );
    expect(pluginErrorText({ error: { code: 'TOOL_FAILED', message: 'Plugin a.b is not installed (list_plugins lists the installed plugins)' } })).toBe('Plugin a.b is not installed');
    expect(pluginErrorText({ error: { code: 'PERMISSION_DENIED', message: 'Cannot enable a.b: unapproved API scopes [ai]' } })).toBe('Cannot enable a.b: unapproved API scopes [ai]');
    expect(pluginErrorText({ error: { code: 'PERMISSION_DENIED', message: 'Plugins cannot manage plugins' } })).toBe('Not allowed: Plugins cannot manage plugins');
  });
});
