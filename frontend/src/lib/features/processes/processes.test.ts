// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount, type Component } from 'svelte';
import type { AppState, BrowserTab, DevServer, OutputEntry, ProcessInfo, TerminalSession, WorkspaceTab } from '../../bridge';

// An in-memory backend for the process tools: lists from `fake`, actions
// recorded (and applied where the panel must see them).
const fake = vi.hoisted(() => ({
  state: null as unknown as AppState,
  servers: [] as DevServer[],
  terminals: [] as TerminalSession[],
  tree: [] as ProcessInfo[],
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  listeners: new Map<string, Set<(p: unknown) => void>>(),
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v));
  return {
    ...real,
    call: vi.fn(async (tool: string, raw: Record<string, unknown> = {}) => {
      const args = copy(raw);
      fake.calls.push({ tool, args });
      switch (tool) {
        case 'app_get_state':
          return { ok: true, content: copy(fake.state) };
        case 'list_dev_servers':
          return { ok: true, content: copy(fake.servers) };
        case 'list_terminals':
          return { ok: true, content: copy(fake.terminals) };
        case 'get_process_tree':
          return { ok: true, content: { processes: copy(fake.tree) } };
        case 'start_dev_server': {
          const s: DevServer = {
            id: 'dev_new', cwd: String(args.cwd), command: String(args.command), args: [], status: 'starting', pid: 77, port: null,
            exitCode: null, signal: null, startedAt: Date.now(),
          };
          fake.servers.push(s);
          return { ok: true, content: s };
        }
        case 'open_browser_tab':
          return { ok: true, content: { id: 'btab_new', spaceId: 'space_1', url: args.url, title: '', active: true, pane: 'primary' } };
        case 'restart_dev_server':
          return { ok: true, content: { ...fake.servers[0], id: 'dev_restarted' } };
        case 'remove_dev_server':
          fake.servers = fake.servers.filter((x) => x.id !== args.devServerId);
          return { ok: true, content: { devServerId: args.devServerId, removed: true } };
        case 'stop_dev_server':
        case 'clear_process_logs':
        case 'close_terminal':
        case 'stop_orphan_process':
        case 'refresh':
        case 'set_space_layout':
        case 'move_tab':
          return { ok: true, content: {} };
        default:
          return { ok: false, error: { code: 'UNKNOWN_TOOL', message: tool } };
      }
    }),
    subscribe: vi.fn((topic: string, fn: (p: unknown) => void) => {
      let set = fake.listeners.get(topic);
      if (!set) fake.listeners.set(topic, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    }),
    listTools: vi.fn(async () => []),
    pendingApprovals: vi.fn(async () => []),
  };
});

const { default: StatusBar } = await import('../shell/StatusBar.svelte');
const { default: ProcessesPanel } = await import('./ProcessesPanel.svelte');
const { default: OutputPanel } = await import('./OutputPanel.svelte');
const { processes } = await import('../../stores/processes.svelte');
const { appState } = await import('../../stores/appState.svelte');
const { ui } = await import('../../stores/ui.svelte');

const server = (over: Partial<DevServer> = {}): DevServer => ({
  id: 'dev_1', cwd: '/home/me/shop', command: 'node server.js', args: [], status: 'running', pid: 4242, port: 3000, exitCode: null,
  signal: null, startedAt: Date.now() - 65_000, ...over,
});

function initialState(over: { browserTabs?: BrowserTab[]; workspaceTabs?: WorkspaceTab[]; open?: 'offer' | 'open' | 'off' } = {}): AppState {
  return {
    version: 1,
    spaces: [{ id: 'space_1', name: 'shop', color: '#6366f1', cwd: '/home/me/shop', projectId: null, layout: undefined as never, createdAt: 1, updatedAt: 1 }],
    activeSpaceId: 'space_1',
    browserTabs: over.browserTabs ?? [],
    workspaceTabs: over.workspaceTabs ?? [],
    projects: [],
    plugins: [],
    settings: {
      autoRunOnOpen: false, confirmOnClose: true, stopServersOnClose: true, showOutputOnRun: true, defaultPackageManager: 'unknown',
      debugMode: false, stopOrphansOnStart: false, devServerOpenBrowser: over.open ?? 'offer', audit: { retentionDays: 90, maxMB: 200 },
      git: { refreshIntervalMs: 2500, showUntrackedFiles: true, confirmBeforeRestore: true, checkpointBeforeAgentRun: true, identityProfiles: [], activeIdentityProfileId: null },
    },
  };
}

const settle = async () => {
  for (let i = 0; i < 8; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const emit = (topic: string, payload: unknown) => fake.listeners.get(topic)?.forEach((fn) => fn(payload));
const used = (tool: string) => fake.calls.filter((c) => c.tool === tool).map((c) => c.args);
const button = (name: string | RegExp) =>
  [...document.querySelectorAll('button')].find((b) => (typeof name === 'string' ? b.textContent?.trim() === name || b.getAttribute('aria-label') === name : name.test(b.textContent ?? ''))) as
    | HTMLButtonElement
    | undefined;

let mounted: ReturnType<typeof mount>[] = [];
beforeEach(async () => {
  fake.state = initialState();
  fake.servers = [];
  fake.terminals = [];
  fake.tree = [];
  fake.calls = [];
  fake.listeners.clear();
  document.body.innerHTML = '';
  processes.reset();
  appState.stop();
  await appState.refresh();
  // The output puller's requests never answer unless a test says so.
  vi.stubGlobal('fetch', (_url: string, init: RequestInit) =>
    new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
  );
});
afterEach(() => {
  mounted.forEach((m) => unmount(m));
  mounted = [];
  processes.reset();
  vi.unstubAllGlobals();
});
const show = (C: unknown, props: Record<string, unknown> = {}) => {
  mounted.push(mount(C as Component<Record<string, unknown>>, { target: document.body, props }));
};

describe('status bar', () => {
  it('says how many dev servers run and on which ports, and opens the Output panel on them', async () => {
    fake.servers = [server(), server({ id: 'dev_2', port: 5173, startedAt: Date.now() }), server({ id: 'dev_old', status: 'exited', port: 8080 })];
    show(StatusBar);
    await settle();
    const item = button(/running/)!;
    expect(item.textContent?.trim()).toBe('2 running :3000 :5173');
    item.click();
    await settle();
    expect(ui.drawerTab).toBe('output');
    expect(processes.selected?.id).toBe('dev_2'); // the newest running one
    expect(used('set_space_layout')).toEqual([{ spaceId: 'space_1', drawerOpen: true }]);
  });

  it('shows nothing while no dev server runs, and follows process_changed hints', async () => {
    show(StatusBar);
    await settle();
    expect(button(/running/)).toBeUndefined();
    fake.servers = [server({ port: null, status: 'starting' })];
    emit('process_changed', { kind: 'dev-server', id: 'dev_1' });
    await settle();
    expect(button(/running/)?.textContent?.trim()).toBe('1 running');
  });
});

describe('open on port', () => {
  async function portAppears(open: 'offer' | 'open' | 'off', browserTabs: BrowserTab[] = []) {
    fake.state = initialState({ open, browserTabs });
    await appState.refresh();
    fake.servers = [server({ port: null, status: 'starting' })];
    show(StatusBar);
    await settle();
    fake.servers = [server({ port: 3000 })];
    emit('process_changed', { kind: 'dev-server', id: 'dev_1' });
    await settle();
  }

  it('"open" opens http://localhost:PORT/ in a new browser tab of the space', async () => {
    await portAppears('open');
    expect(used('open_browser_tab')).toEqual([{ url: 'http://localhost:3000/', spaceId: 'space_1' }]);
  });

  it('"open" reloads a tab already on that port instead', async () => {
    await portAppears('open', [
      { id: 'btab_app', spaceId: 'space_1', url: 'http://127.0.0.1:3000/cart', title: 'Shop', active: true, pane: 'primary',
        loadState: 'complete', canGoBack: false, canGoForward: false, ownerId: null, mode: 'web', contextKey: 'space:space_1', createdAt: 1, updatedAt: 1 },
    ]);
    expect(used('open_browser_tab')).toEqual([]);
    expect(used('refresh')).toEqual([{ tabId: 'btab_app' }]);
  });

  it('"offer" asks first; the button opens the page, once', async () => {
    await portAppears('offer');
    expect(used('open_browser_tab')).toEqual([]);
    expect(document.body.textContent).toContain('listens on :3000');
    button('Open in browser')!.click();
    await settle();
    expect(used('open_browser_tab')).toEqual([{ url: 'http://localhost:3000/', spaceId: 'space_1' }]);
    expect(button('Open in browser')).toBeUndefined();
    emit('process_changed', { kind: 'dev-server', id: 'dev_1' });
    await settle();
    expect(button('Open in browser')).toBeUndefined();
  });

  it('"off" does nothing', async () => {
    await portAppears('off');
    expect(used('open_browser_tab')).toEqual([]);
    expect(button('Open in browser')).toBeUndefined();
  });

  it('does not open servers that had their port before the window looked', async () => {
    fake.state = initialState({ open: 'open' });
    await appState.refresh();
    fake.servers = [server({ port: 3000 })];
    show(StatusBar);
    await settle();
    emit('process_changed', { kind: 'dev-server', id: 'dev_1' });
    await settle();
    expect(used('open_browser_tab')).toEqual([]);
  });
});

describe('processes panel', () => {
  beforeEach(() => {
    fake.servers = [server()];
    fake.terminals = [{ id: 'term_1', cwd: '/home/me/shop', shell: '/bin/bash', pid: 5000, cols: 80, rows: 24, status: 'running', createdAt: Date.now() - 5000, exitCode: null }];
    fake.tree = [
      { kind: 'dev-server', id: 'dev_1', pid: 4242, cwd: '/home/me/shop', command: 'node server.js', status: 'running', ports: [3000, 3001], tree: null },
      { kind: 'terminal', id: 'term_1', pid: 5000, cwd: '/home/me/shop', status: 'running', ports: [], tree: null },
      { kind: 'orphan', id: 'orph_1', pid: 999, cwd: '/old', command: 'vite --port 5173', status: 'running', ports: [5173], tree: null },
    ];
  });

  const row = (id: string) => document.querySelector(`tr[data-id="${id}"]`) as HTMLTableRowElement;
  const rowButton = (id: string, name: string | RegExp) =>
    [...row(id).querySelectorAll('button')].find((b) => (typeof name === 'string' ? b.textContent?.trim() === name : name.test(b.textContent ?? ''))) as HTMLButtonElement;

  it('lists every managed process and orphan with command, pid, ports, status and uptime', async () => {
    show(ProcessesPanel);
    await settle();
    expect(used('get_process_tree').length).toBeGreaterThan(0);
    const dev = row('dev_1').textContent!;
    expect(dev).toContain('node server.js');
    expect(dev).toContain('4242');
    expect(dev).toContain(':3000');
    expect(dev).toContain(':3001');
    expect(dev).toMatch(/1m 0[5-9]s/);
    expect(row('term_1').textContent).toContain('/bin/bash');
    expect(row('orph_1').textContent).toContain('left running by an earlier meith run');
  });

  it('opens, shows logs, restarts and stops a dev server', async () => {
    show(ProcessesPanel);
    await settle();
    rowButton('dev_1', 'Open :3000').click();
    await settle();
    expect(used('open_browser_tab')).toEqual([{ url: 'http://localhost:3000/', spaceId: 'space_1' }]);
    rowButton('dev_1', 'Logs').click();
    await settle();
    expect(ui.drawerTab).toBe('output');
    expect(processes.selectedId).toBe('dev_1');
    rowButton('dev_1', 'Restart').click();
    await settle();
    expect(used('restart_dev_server')).toEqual([{ devServerId: 'dev_1' }]);
    expect(processes.selectedId).toBe('dev_restarted'); // the Output panel follows the new server
    rowButton('dev_1', 'Stop').click();
    await settle();
    expect(used('stop_dev_server')).toEqual([{ devServerId: 'dev_1' }]);
  });

  it('closes a terminal, and stops an orphan only after a second click', async () => {
    show(ProcessesPanel);
    await settle();
    rowButton('term_1', 'Close').click();
    await settle();
    expect(used('close_terminal')).toEqual([{ terminalId: 'term_1' }]);
    rowButton('orph_1', 'Stop').click();
    await settle();
    expect(used('stop_orphan_process')).toEqual([]);
    rowButton('orph_1', 'Really stop?').click();
    await settle();
    expect(used('stop_orphan_process')).toEqual([{ id: 'orph_1' }]);
  });

  /** The action slots of a row: the button in each ('' for an empty slot). */
  const slots = (id: string) =>
    [...row(id).querySelectorAll('td.actions .slot')].map((el) => el.querySelector('button')?.textContent?.trim() ?? '');

  it('keeps every action in its slot: a stop never puts Restart or Remove under the cursor', async () => {
    show(ProcessesPanel);
    await settle();
    const before = slots('dev_1');
    const stopAt = before.indexOf('Stop');
    const restartAt = before.indexOf('Restart');
    expect(stopAt).toBeGreaterThanOrEqual(0);
    expect(restartAt).toBeGreaterThanOrEqual(0);
    expect(slots('term_1').length).toBe(before.length);
    expect(slots('term_1').indexOf('Close')).toBe(stopAt);

    fake.servers = [server({ status: 'stopped', signal: 'SIGTERM', port: 3000 })];
    fake.tree = fake.tree.filter((p) => p.id !== 'dev_1');
    rowButton('dev_1', 'Stop').click();
    await settle();
    const after = slots('dev_1');
    expect(after.length).toBe(before.length);
    expect(after[stopAt]).toBe(''); // a second click of a double-click hits nothing
    expect(after.indexOf('Restart')).toBe(restartAt);
  });

  it('a stopped row loses Open, its pid and its port, and offers Remove and Clear output', async () => {
    fake.servers = [server({ status: 'exited', exitCode: 0, port: 3000 })];
    fake.terminals = [{ ...fake.terminals[0], status: 'exited', exitCode: 0 }];
    fake.tree = fake.tree.filter((p) => p.kind === 'orphan');
    show(ProcessesPanel);
    await settle();
    const dev = row('dev_1');
    expect(rowButton('dev_1', /^Open/)).toBeUndefined();
    expect(dev.querySelector('.ports')?.textContent?.trim()).toBe('—');
    expect(dev.querySelector('.pid')?.textContent?.trim()).toBe('—');
    expect(rowButton('term_1', /^Open/)).toBeUndefined();

    rowButton('dev_1', 'Clear').click();
    await settle();
    expect(used('clear_process_logs')).toEqual([{ processId: 'dev_1' }]);
    rowButton('dev_1', 'Remove').click();
    await settle();
    expect(used('remove_dev_server')).toEqual([{ devServerId: 'dev_1' }]);
    expect(row('dev_1')).toBeNull();
    rowButton('term_1', 'Remove').click();
    await settle();
    expect(used('close_terminal')).toEqual([{ terminalId: 'term_1' }]);
  });

  it('shows the command in the Command column, the name apart', async () => {
    fake.servers = [server({ name: 'shop', command: 'npm', args: ['run', 'dev'] })];
    show(ProcessesPanel);
    await settle();
    expect(row('dev_1').querySelector('.cmd code')?.textContent).toBe('npm run dev');
    expect(row('dev_1').querySelector('.cmd .name')?.textContent).toBe('shop');
    expect(row('term_1').querySelector('.cmd code')?.textContent).toBe('/bin/bash');
    expect(row('term_1').querySelector('.cmd .name')).toBeNull();
  });

  it('gives every column but Command a fixed width', async () => {
    show(ProcessesPanel);
    await settle();
    const cols = [...document.querySelectorAll('table colgroup col')] as HTMLTableColElement[];
    expect(cols.length).toBe(document.querySelectorAll('table thead th').length);
    const widths = cols.map((c) => c.style.width);
    expect(widths.filter((w) => /^\d+px$/.test(w)).length).toBe(cols.length - 1);
    expect(widths[1]).toBe('');
  });

  it('runs a dev server from the Run form in the space folder and shows its output', async () => {
    fake.servers = [];
    show(ProcessesPanel);
    await settle();
    button('Run…')!.click();
    await settle();
    const form = document.querySelector('form[aria-label="Run a dev server"]') as HTMLFormElement;
    const [cmd, cwd] = [...form.querySelectorAll('input')] as HTMLInputElement[];
    expect(cwd.value).toBe('/home/me/shop');
    cmd.value = 'node server.js';
    cmd.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await settle();
    expect(used('start_dev_server')).toEqual([{ cwd: '/home/me/shop', command: 'node server.js' }]);
    expect(processes.selectedId).toBe('dev_new');
    expect(ui.drawerTab).toBe('output');
    expect(document.querySelector('form[aria-label="Run a dev server"]')).toBeNull();
  });
});

describe('terminal tabs', () => {
  const termTab = (id: string, terminalId: string | null): WorkspaceTab => ({
    id, spaceId: 'space_1', kind: 'terminal', title: 'Terminal', cwd: '/home/me/shop', active: true, pane: 'primary', terminalId,
    activeFilePath: null, openFilePaths: [], selectedGitFilePath: null, createdAt: 1,
  });

  it('closes the terminal of a tab that went away or was bound to another terminal, never on the first look', async () => {
    processes.noteTabs([termTab('wtab_1', 'term_a'), termTab('wtab_2', 'term_b'), termTab('wtab_3', null)]);
    await settle();
    expect(used('close_terminal')).toEqual([]);
    processes.noteTabs([termTab('wtab_2', 'term_c')]);
    await settle();
    expect(used('close_terminal')).toEqual([{ terminalId: 'term_a' }, { terminalId: 'term_b' }]);
  });
});

describe('output panel', () => {
  const lines = (n: number, from = 1): OutputEntry[] =>
    Array.from({ length: n }, (_, i) => ({ seq: from + i, stream: i % 10 === 9 ? 'stderr' : 'stdout', text: `\x1b[32mline ${from + i}\x1b[0m`, ts: 0 }));

  beforeEach(() => {
    fake.servers = [server(), server({ id: 'dev_2', port: null, status: 'exited', startedAt: 1, command: 'npm test' })];
    const first = lines(5000);
    vi.stubGlobal('fetch', (url: string, init: RequestInit) => {
      if (url.endsWith('after=0')) return Promise.resolve(new Response(JSON.stringify({ entries: first, nextSeq: 5001, status: 'running' })));
      return new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
    });
  });

  it('picks the newest server, renders only the visible rows of 5,000, strips ANSI, marks stderr', async () => {
    show(OutputPanel);
    await settle();
    await new Promise((r) => setTimeout(r, 50));
    await settle();
    const options = [...document.querySelectorAll('[role="option"]')];
    expect(options.map((o) => o.textContent?.replace(/\s+/g, ' ').trim())).toEqual(['node server.js :3000', 'npm test']);
    expect(options[0].getAttribute('aria-selected')).toBe('true');
    expect(document.body.textContent).toContain('5000 lines');
    const rows = document.querySelectorAll('.row');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(60);
    expect(document.body.innerHTML).not.toContain('\x1b');
    expect(document.querySelector('.row.stderr')).not.toBeNull();
  });

  it('filters by stream and search, highlighting the matches', async () => {
    show(OutputPanel);
    await settle();
    await new Promise((r) => setTimeout(r, 50));
    await settle();
    (document.querySelector('[aria-label="Stream filter"]') as HTMLElement).querySelectorAll('button')[2].click();
    flushSync();
    await settle();
    expect(document.body.textContent).toContain('500 of 5000 lines');
    const search = document.querySelector('input[aria-label="Search output"]') as HTMLInputElement;
    search.value = 'LINE 5000';
    search.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    await settle();
    expect(document.body.textContent).toContain('1 of 5000 lines');
    expect(document.querySelector('mark')?.textContent).toBe('line 5000');
  });
});
