// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount, type Component } from 'svelte';
import type { AppState, BrowserTab } from '../../bridge';
import type { Project, ProjectDevServer, RunCommand } from './projectTools';
import { defaultSettings } from '../../testing/settings';

// An in-memory backend for the project and process tools, as the plan
// describes them: project_run starts a server record (starting, no port)
// for the project and space; project_stop_dev_server stops them all.
const fake = vi.hoisted(() => ({
  state: null as unknown as AppState,
  projects: [] as Project[],
  servers: [] as ProjectDevServer[],
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  listeners: new Map<string, Set<(p: unknown) => void>>(),
  fail: {} as Record<string, { code: string; message: string; details?: Record<string, unknown> }>,
  dialog: '',
  refreshGate: null as Promise<void> | null,
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v));
  return {
    ...real,
    call: vi.fn(async (tool: string, raw: Record<string, unknown> = {}) => {
      const args = copy(raw);
      fake.calls.push({ tool, args });
      if (fake.fail[tool]) return { ok: false, error: fake.fail[tool] };
      switch (tool) {
        case 'app_get_state':
          return { ok: true, content: copy(fake.state) };
        case 'project_list':
          return { ok: true, content: { projects: copy(fake.projects) } };
        case 'list_dev_servers':
          return { ok: true, content: copy(fake.servers) };
        case 'list_terminals':
          return { ok: true, content: [] };
        case 'project_run': {
          const p = fake.projects.find((x) => x.id === args.projectId)!;
          const s: ProjectDevServer = {
            id: `dev_${fake.servers.length + 1}`, cwd: p.cwd, command: 'sh', args: ['-c', 'pnpm dev'], status: 'starting', pid: 9, port: null,
            exitCode: null, signal: null, startedAt: Date.now() + fake.servers.length, projectId: p.id, spaceId: p.spaceId,
          };
          fake.servers.push(s);
          return { ok: true, content: { commandId: args.commandId ?? 'script-dev', devServer: s } };
        }
        case 'project_retry_dev_server': {
          const p = fake.projects.find((x) => x.id === args.projectId)!;
          for (const x of fake.servers) if (x.projectId === p.id) x.status = 'stopped';
          const s: ProjectDevServer = {
            id: `dev_${fake.servers.length + 1}`, cwd: p.cwd, command: 'sh', args: ['-c', 'pnpm dev'], status: 'starting', pid: 10, port: null,
            exitCode: null, signal: null, startedAt: Date.now() + fake.servers.length, projectId: p.id, spaceId: p.spaceId,
          };
          fake.servers.push(s);
          return { ok: true, content: { devServer: s, previousLogsTail: 'Error: boom' } };
        }
        case 'project_setup_detect':
          return { ok: true, content: { ...fake.projects[0].detection, envFiles: [], isMonorepo: false, setupNotes: ['Run pnpm install: node_modules is missing'] } };
        case 'project_stop_dev_server': {
          const stopped = fake.servers.filter((s) => s.projectId === args.projectId && s.status !== 'stopped');
          for (const s of stopped) s.status = 'stopped';
          return { ok: true, content: { stopped: stopped.map((s) => s.id) } };
        }
        case 'project_open': {
          const p = fake.projects.find((x) => x.cwd === args.cwd)!;
          return { ok: true, content: { project: p, space: fake.state.spaces[0], workspaceTab: null, created: false, devServer: null } };
        }
        case 'open_browser_tab':
          return { ok: true, content: { id: 'btab_new', spaceId: args.spaceId, url: args.url, title: '', active: true, pane: 'primary' } };
        case 'refresh':
          if (fake.refreshGate) await fake.refreshGate;
          return { ok: true, content: {} };
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
    openFolderDialog: vi.fn(async () => fake.dialog),
    listTools: vi.fn(async () => []),
    pendingApprovals: vi.fn(async () => []),
  };
});

const { default: RunButton } = await import('./RunButton.svelte');
const { default: SpacesRail } = await import('../shell/SpacesRail.svelte');
const { run } = await import('../../stores/run.svelte');
const { projects } = await import('../../stores/projects.svelte');
const { processes } = await import('../../stores/processes.svelte');
const { appState } = await import('../../stores/appState.svelte');
const { ui } = await import('../../stores/ui.svelte');

const cmd = (id: string, label: string, command: string, isDevServer = true): RunCommand => ({ id, label, command, isDevServer });
const project = (over: Partial<Project> = {}): Project => ({
  id: 'proj_1', name: 'shop', cwd: '/home/me/shop', kind: 'app', spaceId: 'space_1', openedAt: 1, updatedAt: 1, runConfig: null,
  detection: {
    name: 'shop', stacks: ['node'], framework: 'vite', label: 'Vite + pnpm', packageManager: 'pnpm', lockfile: true, hasPackageJson: true,
    scripts: null, likelyPort: 5173, workspaces: null,
    commands: [cmd('script-build', 'build', 'pnpm build', false), cmd('script-dev', 'dev', 'pnpm dev'), cmd('script-start', 'start', 'pnpm start')],
  },
  ...over,
});
const tab = (url: string): BrowserTab => ({
  id: 'btab_app', spaceId: 'space_1', url, title: 'Shop', active: true, pane: 'primary', loadState: 'complete', canGoBack: false, canGoForward: false,
  ownerId: null, mode: 'web', contextKey: 'space:space_1', createdAt: 1, updatedAt: 1,
} as BrowserTab);

function initialState(open: 'offer' | 'open' | 'off' = 'offer', showOutputOnRun = true, browserTabs: BrowserTab[] = []): AppState {
  return {
    version: 3,
    projects: [],
    plugins: [],
    spaces: [{ id: 'space_1', name: 'shop', color: '#6366f1', cwd: '/home/me/shop', projectId: 'proj_1', layout: undefined as never, createdAt: 1, updatedAt: 1 }],
    activeSpaceId: 'space_1',
    browserTabs,
    workspaceTabs: [],
    settings: { ...defaultSettings(), devServerOpenBrowser: open, showOutputOnRun },
  };
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const emit = (topic: string, payload: unknown) => fake.listeners.get(topic)?.forEach((fn) => fn(payload));
const used = (tool: string) => fake.calls.filter((c) => c.tool === tool).map((c) => c.args);
const byTestId = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);

let mounted: ReturnType<typeof mount>[] = [];
let stops: (() => void)[] = [];
async function setup(state: AppState, list: Project[] = [project()]) {
  fake.state = state;
  fake.projects = list;
  await appState.refresh();
  stops.push(processes.start(), projects.start(), run.start());
  await settle();
}
const show = (C: unknown) => mounted.push(mount(C as Component<Record<string, unknown>>, { target: document.body, props: {} }));
/** The server reports its port (the process tools' hint). */
async function portArrives(port: number) {
  for (const s of fake.servers) if (s.status === 'starting') Object.assign(s, { status: 'running', port });
  emit('process_changed', { kind: 'dev-server', id: '' });
  await settle();
}

beforeEach(() => {
  fake.servers = [];
  fake.calls = [];
  fake.fail = {};
  fake.listeners.clear();
  document.body.innerHTML = '';
  processes.reset();
  projects.stop();
  projects.list = [];
  run.armed = null;
  run.failure = null;
  ui.drawerTab = 'logs';
  ui.view = 'workspace';
  vi.stubGlobal('fetch', (_url: string, init: RequestInit) =>
    new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
  );
});
afterEach(() => {
  mounted.forEach((m) => unmount(m));
  mounted = [];
  stops.forEach((s) => s());
  stops = [];
  processes.reset();
  vi.unstubAllGlobals();
});

describe('the header Run button', () => {
  it('shows nothing without a project in the active space', async () => {
    await setup(initialState(), []);
    show(RunButton);
    await settle();
    expect(byTestId('run')).toBeNull();
  });

  it('names the default command; the menu lists the others and runs one with project_run', async () => {
    await setup(initialState());
    show(RunButton);
    await settle();
    expect(byTestId('run')?.dataset.state).toBe('idle');
    expect(byTestId('run-button')?.textContent).toContain('dev');
    byTestId('run-menu-toggle')!.click();
    await settle();
    const items = [...document.querySelectorAll<HTMLElement>('[data-testid="run-menu-item"]')];
    expect(items.map((i) => i.dataset.commandId)).toEqual(['script-dev', 'script-build', 'script-start']);
    items[2].click();
    await settle();
    expect(used('project_run')).toEqual([{ projectId: 'proj_1', commandId: 'script-start' }]);
    expect(byTestId('run-menu')).toBeNull();
  });

  it('uses the saved default of a saved configuration', async () => {
    await setup(initialState(), [project({ runConfig: { commands: [cmd('custom-a', 'Alpha', 'a'), cmd('custom-b', 'Beta', 'b')], defaultCommandId: 'custom-b', env: {} } })]);
    show(RunButton);
    await settle();
    expect(byTestId('run-button')?.textContent).toContain('Beta');
  });

  it('Run: Output follows the server, the state goes starting → running with the port chip, and the page opens once (no offer)', async () => {
    await setup(initialState('offer'));
    show(RunButton);
    await settle();
    byTestId('run-button')!.click();
    await settle();
    expect(used('project_run')).toEqual([{ projectId: 'proj_1' }]);
    expect(ui.drawerTab).toBe('output');
    expect(used('set_space_layout')).toEqual([{ spaceId: 'space_1', drawerOpen: true }]);
    expect(processes.selected?.id).toBe('dev_1');
    expect(byTestId('run')?.dataset.state).toBe('starting');
    expect(byTestId('run-stop')).not.toBeNull();
    expect(byTestId('run-port')).toBeNull();

    await portArrives(5173);
    expect(byTestId('run')?.dataset.state).toBe('running');
    expect(byTestId('run-port')?.textContent).toBe(':5173');
    expect(used('open_browser_tab')).toEqual([{ url: 'http://localhost:5173/', spaceId: 'space_1' }]);
    expect(processes.offers).toEqual([]);
    expect(run.armed).toBeNull();
    // Another hint does not open it again.
    emit('process_changed', { kind: 'dev-server', id: 'dev_1' });
    await settle();
    expect(used('open_browser_tab')).toHaveLength(1);
  });

  it('the auto-open reloads a tab already on the port; the port chip does too', async () => {
    await setup(initialState('offer', false, [tab('http://127.0.0.1:5173/cart')]));
    show(RunButton);
    await settle();
    byTestId('run-button')!.click();
    await settle();
    expect(used('set_space_layout')).toEqual([]); // showOutputOnRun off: the drawer stays shut
    await portArrives(5173);
    expect(used('open_browser_tab')).toEqual([]);
    expect(used('refresh')).toEqual([{ tabId: 'btab_app' }]);
    byTestId('run-port')!.click();
    await settle();
    expect(used('refresh')).toEqual([{ tabId: 'btab_app' }, { tabId: 'btab_app' }]);
  });

  it('"off" keeps the Run from opening the page', async () => {
    await setup(initialState('off'));
    show(RunButton);
    await settle();
    byTestId('run-button')!.click();
    await settle();
    await portArrives(3000);
    expect(used('open_browser_tab')).toEqual([]);
    expect(byTestId('run-port')?.textContent).toBe(':3000');
  });

  it('a server started by hand in the same folder still gets the setting offer', async () => {
    await setup(initialState('offer'));
    fake.servers.push({ id: 'dev_hand', cwd: '/home/me/shop', command: 'node', args: [], status: 'starting', pid: 3, port: null, exitCode: null, signal: null, startedAt: 1 });
    emit('process_changed', { kind: 'dev-server', id: '' });
    await settle();
    await portArrives(4000);
    expect(processes.offers.map((o) => o.serverId)).toEqual(['dev_hand']);
  });

  it('Stop calls project_stop_dev_server and the button goes back to Run', async () => {
    await setup(initialState());
    show(RunButton);
    await settle();
    byTestId('run-button')!.click();
    await settle();
    await portArrives(5173);
    byTestId('run-stop')!.click();
    await settle();
    expect(used('project_stop_dev_server')).toEqual([{ projectId: 'proj_1' }]);
    expect(byTestId('run')?.dataset.state).toBe('idle');
    expect(byTestId('run-button')).not.toBeNull();
  });

  it('shows an errored server and a failed Run inline', async () => {
    await setup(initialState());
    fake.servers.push({ id: 'dev_x', cwd: '/home/me/shop', command: 'sh', args: [], status: 'errored', pid: 3, port: null, exitCode: 2, signal: null, startedAt: 5, projectId: 'proj_1', spaceId: 'space_1' });
    emit('process_changed', { kind: 'dev-server', id: '' });
    show(RunButton);
    await settle();
    expect(byTestId('run')?.dataset.state).toBe('errored');
    expect(byTestId('run-state')?.getAttribute('title')).toContain('errored with code 2');

    fake.fail.project_run = { code: 'TOOL_FAILED', message: 'no dev or start command found in shop: add one in Settings → Run' };
    byTestId('run-button')!.click();
    await settle();
    expect(byTestId('run-error')?.textContent).toBe('No dev or start command found in shop: add one in Settings → Run');
  });

  it('a run that exits at once fails inline and Output shows its server', async () => {
    await setup(initialState());
    show(RunButton);
    await settle();
    fake.servers.push({ id: 'dev_9', cwd: '/home/me/shop', command: 'sh', args: [], status: 'exited', pid: 3, port: null, exitCode: 127, signal: null, startedAt: 5, projectId: 'proj_1', spaceId: 'space_1' });
    fake.fail.project_run = {
      code: 'TOOL_FAILED',
      message: 'the run command exited with code 127 at once (dev server dev_9): sh: 1: vitee: not found; see its output (get_process_logs) and fix the command in Settings → Run',
      details: { devServerId: 'dev_9', exitCode: 127, logsTail: 'sh: 1: vitee: not found' },
    };
    byTestId('run-button')!.click();
    await settle();
    expect(byTestId('run-error')?.textContent).toContain('exited with code 127 at once');
    expect(processes.selectedId).toBe('dev_9');
    expect(ui.drawerTab).toBe('output');
  });

  it('follows the projects on state_changed hints', async () => {
    await setup(initialState(), []);
    show(RunButton);
    await settle();
    expect(byTestId('run')).toBeNull();
    fake.projects = [project()];
    emit('state_changed', { kind: 'tabs' });
    await settle();
    expect(byTestId('run')).toBeNull(); // tab hints do not concern projects
    emit('state_changed', { kind: 'spaces', ids: ['space_1'] });
    await settle();
    expect(byTestId('run')).not.toBeNull();
  });
});

describe('open folder and the detection label', () => {
  it('the rail opens a folder through project_open and shows the detection in the tooltip', async () => {
    await setup(initialState());
    show(SpacesRail);
    await settle();
    const avatar = document.querySelector<HTMLElement>('button[aria-label="Space shop"]')!;
    expect(avatar.title).toBe('shop (Vite + pnpm) — /home/me/shop (right-click for actions)');
    fake.dialog = '/home/me/shop';
    byTestId('open-folder')!.click();
    await settle();
    expect(used('project_open')).toEqual([{ cwd: '/home/me/shop' }]);
    expect(used('create_space')).toEqual([]);

    fake.calls = [];
    fake.dialog = ''; // cancelled
    byTestId('open-folder')!.click();
    await settle();
    expect(used('project_open')).toEqual([]);
  });

  it('an open that fails says why', async () => {
    await setup(initialState());
    fake.fail.project_open = { code: 'TOOL_FAILED', message: '/gone does not exist' };
    expect(await projects.open('/gone')).toEqual({ ok: false, error: '/gone does not exist' });
  });

  it('an errored run offers Retry in the menu: project_retry_dev_server, and Output follows the fresh server', async () => {
    await setup(initialState());
    fake.servers.push({
      id: 'dev_1', cwd: '/home/me/shop', command: 'sh', args: [], status: 'errored', pid: 9, port: null, exitCode: 1, signal: null,
      startedAt: 1, projectId: 'proj_1', spaceId: 'space_1',
    } as ProjectDevServer);
    await processes.refresh();
    show(RunButton);
    await settle();
    expect(byTestId('run')?.dataset.state).toBe('errored');
    byTestId('run-menu-toggle')!.click();
    await settle();
    byTestId('run-menu-retry')!.click();
    await settle();
    expect(used('project_retry_dev_server')).toEqual([{ projectId: 'proj_1' }]);
    expect(processes.selectedId).toBe('dev_2');
    expect(ui.drawerTab).toBe('output');
    expect(byTestId('run')?.dataset.state).toBe('starting');
  });

  it('the menu shows the project setup notes', async () => {
    await setup(initialState());
    show(RunButton);
    await settle();
    expect(byTestId('run-menu-retry')).toBeNull();
    byTestId('run-menu-toggle')!.click();
    await settle();
    expect(used('project_setup_detect')).toEqual([{ cwd: '/home/me/shop' }]);
    expect(byTestId('run-setup-notes')?.textContent).toContain('Run pnpm install: node_modules is missing');
  });

  it('a port chip whose reload answers late leaves the user where they went since (Settings)', async () => {
    await setup(initialState('off', false, [tab('http://127.0.0.1:5173/cart')]));
    show(RunButton);
    await settle();
    byTestId('run-button')!.click();
    await settle();
    await portArrives(5173);
    let answer = () => {};
    fake.refreshGate = new Promise<void>((r) => (answer = r));
    try {
      byTestId('run-port')!.click();
      await settle();
      ui.openSettings('run'); // the user moves on before the reload answers
      answer();
      await settle();
      expect(used('refresh')).toEqual([{ tabId: 'btab_app' }]);
      expect(ui.view).toBe('settings');
    } finally {
      fake.refreshGate = null;
    }
  });

  it('Escape closes the Run menu wherever the focus is', async () => {
    await setup(initialState());
    show(RunButton);
    await settle();
    byTestId('run-menu-toggle')!.click();
    await settle();
    expect(byTestId('run-menu')).not.toBeNull();
    (document.activeElement as HTMLElement | null)?.blur(); // e.g. the items were disabled and could not take the focus
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    await settle();
    expect(byTestId('run-menu')).toBeNull();
  });
});
