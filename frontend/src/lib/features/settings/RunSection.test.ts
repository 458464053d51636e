// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { AppState } from '../../bridge';
import type { Project, RunConfig } from '../run/projectTools';
import { defaultSettings } from '../../testing/settings';

// An in-memory backend: project_set_run_config validates as the plan says
// (ids [a-z0-9-]{1,64}, unique; defaultCommandId one of them or ""; env
// names) and stores the configuration, or null for the detected one.
const fake = vi.hoisted(() => ({
  state: null as unknown as AppState,
  projects: [] as Project[],
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  broken: false,
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v));
  const fail = (message: string) => ({ ok: false, error: { code: 'VALIDATION_ERROR', message } });
  return {
    ...real,
    call: vi.fn(async (tool: string, raw: Record<string, unknown> = {}) => {
      const args = copy(raw);
      fake.calls.push({ tool, args });
      switch (tool) {
        case 'app_get_state':
          return { ok: true, content: copy(fake.state) };
        case 'project_list':
          return { ok: true, content: { projects: copy(fake.projects) } };
        case 'project_set_run_config': {
          if (fake.broken) return { ok: false, error: { code: 'TOOL_FAILED', message: 'state.json: disk full' } };
          const p = fake.projects.find((x) => x.id === args.projectId);
          if (!p) return fail('unknown projectId');
          const rc = args.runConfig as RunConfig | null;
          if (rc) {
            const ids = (rc.commands ?? []).map((c) => c.id);
            if (ids.some((id) => !/^[a-z0-9-]{1,64}$/.test(id)) || new Set(ids).size !== ids.length) return fail('bad command id');
            if (rc.defaultCommandId !== '' && !ids.includes(rc.defaultCommandId)) return fail('defaultCommandId is not a command');
            if (Object.keys(rc.env ?? {}).some((k) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k))) return fail('bad env key');
          }
          p.runConfig = rc;
          p.updatedAt++;
          return { ok: true, content: copy(p) };
        }
        default:
          return { ok: false, error: { code: 'UNKNOWN_TOOL', message: tool } };
      }
    }),
    subscribe: vi.fn(() => () => {}),
    openFolderDialog: vi.fn(async () => ''),
    listTools: vi.fn(async () => []),
    pendingApprovals: vi.fn(async () => []),
  };
});

const { default: RunSection } = await import('./RunSection.svelte');
const { appState } = await import('../../stores/appState.svelte');
const { projects } = await import('../../stores/projects.svelte');

const project = (over: Partial<Project> = {}): Project => ({
  id: 'proj_1', name: 'shop', cwd: '/home/me/shop', kind: 'app', spaceId: 'space_1', openedAt: 1, updatedAt: 1, runConfig: null,
  detection: {
    name: 'shop', stacks: ['node'], framework: 'vite', label: 'Vite + npm', packageManager: 'npm', lockfile: true, hasPackageJson: true,
    scripts: null, likelyPort: 5173, workspaces: null,
    commands: [{ id: 'script-dev', label: 'dev', command: 'npm run dev', isDevServer: true }],
  },
  ...over,
});

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const all = (id: string) => [...document.querySelectorAll<HTMLInputElement>(`[data-testid="${id}"]`)];
const one = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);
function type(el: HTMLInputElement, value: string) {
  el.value = value;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}
const saved = () => fake.calls.filter((c) => c.tool === 'project_set_run_config').map((c) => c.args);

let m: ReturnType<typeof mount> | null = null;
async function show(list: Project[]) {
  fake.projects = list;
  fake.state = {
    version: 3,
    spaces: [{ id: 'space_1', name: 'shop', color: '#6366f1', cwd: '/home/me/shop', projectId: list[0]?.id ?? null, layout: undefined as never, createdAt: 1, updatedAt: 1 }],
    activeSpaceId: 'space_1', browserTabs: [], workspaceTabs: [], projects: [], plugins: [], settings: defaultSettings(),
  };
  await appState.refresh();
  await projects.refresh();
  m = mount(RunSection, { target: document.body });
  await settle();
}

beforeEach(() => {
  fake.calls = [];
  fake.broken = false;
  document.body.innerHTML = '';
});
afterEach(() => {
  if (m) unmount(m);
  m = null;
});

describe('Settings → Run', () => {
  it('without a project asks for a folder', async () => {
    await show([]);
    expect(one('run-settings-empty')?.textContent).toBe('Open a folder to configure how it runs.');
    expect(one('run-settings')).toBeNull();
  });

  it('with no commands says the detected script is used', async () => {
    await show([project({ detection: { ...project().detection, commands: [] } })]);
    expect(one('run-settings-no-commands')?.textContent).toBe('The detected dev/start script is used until you add one.');
  });

  it('shows the detected commands, adds one, makes it the default and saves; empty commands are dropped', async () => {
    await show([project()]);
    expect(all('run-command-command').map((i) => i.value)).toEqual(['npm run dev']);
    expect(all('run-command-default')[0].checked).toBe(true);
    expect((one('run-settings-save') as HTMLButtonElement).disabled).toBe(true); // nothing changed

    one('run-command-add')!.click();
    one('run-command-add')!.click();
    flushSync();
    type(all('run-command-label')[1], 'Serve');
    type(all('run-command-command')[1], 'node server.mjs --port 4000');
    all('run-command-default')[1].click();
    flushSync();
    // The third row stays empty: it is dropped.
    one('run-settings-save')!.click();
    await settle();
    expect(saved()).toEqual([
      {
        projectId: 'proj_1',
        runConfig: {
          commands: [
            { id: 'script-dev', label: 'dev', command: 'npm run dev', isDevServer: true },
            { id: 'custom-serve', label: 'Serve', command: 'node server.mjs --port 4000', isDevServer: true },
          ],
          defaultCommandId: 'custom-serve',
          env: {},
        },
      },
    ]);
    // The form now shows what was saved, two rows.
    expect(all('run-command-command').map((i) => i.value)).toEqual(['npm run dev', 'node server.mjs --port 4000']);
    expect(document.body.textContent).toContain('Saved.');
  });

  it('masks the values of secret-looking keys with a show toggle', async () => {
    await show([project({ runConfig: { commands: [], defaultCommandId: '', env: { PORT: '4000', API_TOKEN: 'tok-123' } } })]);
    const values = all('run-env-value');
    expect(values.map((v) => v.type)).toEqual(['text', 'password']);
    expect(values[1].value).toBe('tok-123');
    const toggles = all('run-env-show');
    expect(toggles).toHaveLength(1); // PORT has none
    toggles[0].click();
    flushSync();
    expect(all('run-env-value')[1].type).toBe('text');
    expect(toggles[0].getAttribute('aria-pressed')).toBe('true');

    // A key renamed to a secret-looking one masks its value at once.
    type(all('run-env-key')[0], 'DB_PASSWORD');
    expect(all('run-env-value')[0].type).toBe('password');
  });

  it('names a bad env name next to its row and saves nothing', async () => {
    await show([project()]);
    one('run-env-add')!.click();
    flushSync();
    type(all('run-env-key')[0], '9LIVES');
    type(all('run-env-value')[0], 'x');
    one('run-settings-save')!.click();
    await settle();
    expect(saved()).toEqual([]);
    expect(document.querySelector('[data-testid="run-env-row"] [role="alert"]')?.textContent).toBe(
      'A name has letters, digits and _ and does not start with a digit.',
    );
  });

  it('shows the tool error inline, and Reset to detected sends null', async () => {
    await show([project({ runConfig: { commands: [{ id: 'custom-a', label: 'A', command: 'a', isDevServer: false }], defaultCommandId: 'custom-a', env: {} } })]);
    fake.broken = true;
    type(all('run-command-label')[0], 'Alpha');
    one('run-settings-save')!.click();
    await settle();
    expect(one('run-settings-error')?.textContent).toBe('State.json: disk full');
    expect(all('run-command-label')[0].value).toBe('Alpha'); // the edit is kept

    fake.broken = false;
    one('run-settings-reset')!.click();
    await settle();
    expect(saved().at(-1)).toEqual({ projectId: 'proj_1', runConfig: null });
    expect(all('run-command-command').map((i) => i.value)).toEqual(['npm run dev']);
    expect((one('run-settings-reset') as HTMLButtonElement).disabled).toBe(true);
  });
});
