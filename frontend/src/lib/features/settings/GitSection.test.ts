// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { AppState, GitSettings, IdentityProfile } from '../../bridge';
import type { IdentitySuggestion } from './gitIdentity';
import { defaultSettings } from '../../testing/settings';

// An in-memory backend: app_get_state answers with the state, and
// set_app_settings merges a git patch the way backend/tools/settingstools does
// (a given identityProfiles replaces the list and drops an active id that
// is no longer in it; ids must start with "gitacct_"; the active id must exist).
const fake = vi.hoisted(() => ({
  state: null as unknown as AppState,
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  suggestions: [] as IdentitySuggestion[],
  /** Makes set_app_settings fail. */
  broken: false,
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  const fail = (message: string) => ({ ok: false, error: { code: 'VALIDATION_ERROR', message } });
  return {
    ...real,
    call: vi.fn(async (tool: string, raw: Record<string, unknown> = {}) => {
      const args = JSON.parse(JSON.stringify(raw)) as Record<string, unknown>;
      fake.calls.push({ tool, args });
      switch (tool) {
        case 'app_get_state':
          return { ok: true, content: JSON.parse(JSON.stringify(fake.state)) };
        case 'get_app_settings':
          return { ok: true, content: { settings: JSON.parse(JSON.stringify(fake.state.settings)) } };
        case 'set_app_settings': {
          if (fake.broken) return { ok: false, error: { code: 'TOOL_FAILED', message: 'disk full' } };
          const patch = (args.settings as { git?: Partial<GitSettings> }).git ?? {};
          const g = { ...fake.state.settings.git };
          for (const k of ['refreshIntervalMs', 'showUntrackedFiles', 'confirmBeforeRestore', 'checkpointBeforeAgentRun'] as const) {
            if (patch[k] !== undefined) (g as Record<string, unknown>)[k] = patch[k];
          }
          if (patch.identityProfiles) {
            if (patch.identityProfiles.some((p) => !p.id.startsWith('gitacct_'))) return fail('profile id must start with "gitacct_"');
            g.identityProfiles = patch.identityProfiles;
            if (!g.identityProfiles.some((p) => p.id === g.activeIdentityProfileId)) g.activeIdentityProfileId = null;
          }
          if (patch.activeIdentityProfileId !== undefined) g.activeIdentityProfileId = patch.activeIdentityProfileId;
          if (g.refreshIntervalMs < 500 || g.refreshIntervalMs > 60000) return fail('refresh interval out of range');
          if (g.activeIdentityProfileId !== null && !g.identityProfiles.some((p) => p.id === g.activeIdentityProfileId)) {
            return fail('active identity profile does not exist');
          }
          fake.state.settings.git = g;
          return { ok: true, content: { settings: JSON.parse(JSON.stringify(fake.state.settings)) } };
        }
        case 'git_identity_detect':
          return { ok: true, content: { root: '/home/me/shop', suggestions: fake.suggestions } };
        default:
          return { ok: false, error: { code: 'TOOL_NOT_FOUND', message: tool } };
      }
    }),
    subscribe: vi.fn(() => () => {}),
    listTools: vi.fn(async () => []),
    pendingApprovals: vi.fn(async () => []),
  };
});

const { default: GitSection } = await import('./GitSection.svelte');
const { default: SettingsView } = await import('./SettingsView.svelte');
const { appState } = await import('../../stores/appState.svelte');
const { toasts } = await import('../../stores/toasts.svelte');

const ada: IdentityProfile = { id: 'gitacct_aaaaaaaaaaaa', label: 'Work', name: 'Ada', email: 'ada@work.example' };
const bob: IdentityProfile = { id: 'gitacct_bbbbbbbbbbbb', label: 'Home', name: 'Bob', email: 'bob@home.example' };

function initialState(profiles: IdentityProfile[], active: string | null): AppState {
  return {
    version: 1,
    spaces: [{ id: 'space_1', name: 'shop', color: '#6366f1', cwd: '/home/me/shop', projectId: null, layout: undefined as never, createdAt: 1, updatedAt: 1 }],
    activeSpaceId: 'space_1',
    browserTabs: [],
    workspaceTabs: [],
    projects: [],
    plugins: [],
    settings: defaultSettings({ identityProfiles: profiles, activeIdentityProfileId: active }),
  };
}

const settle = async () => {
  for (let i = 0; i < 8; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const git = () => fake.state.settings.git;
const writes = () => fake.calls.filter((c) => c.tool === 'set_app_settings').map((c) => (c.args.settings as { git: unknown }).git);
const button = (name: RegExp) =>
  [...document.querySelectorAll('button')].find((b) => name.test(b.getAttribute('aria-label') ?? b.textContent?.trim() ?? '')) as HTMLButtonElement;
/** The control a <label> names: by its text. */
function control<T extends HTMLElement>(text: RegExp, root: ParentNode = document): T {
  const label = [...root.querySelectorAll('label')].find((l) => text.test(l.textContent ?? ''));
  if (!label) throw new Error(`no label ${text}`);
  const el = label.htmlFor ? document.getElementById(label.htmlFor) : label.querySelector('input, select');
  if (!el) throw new Error(`no control for ${text}`);
  return el as T;
}
const profileBox = (label: string) =>
  [...document.querySelectorAll('fieldset')].find((f) => f.querySelector('legend')?.textContent?.includes(label)) as HTMLFieldSetElement;
const activeSelect = () => control<HTMLSelectElement>(/Active account/);
const text = () => document.body.textContent!.replace(/\s+/g, ' ');

let app: ReturnType<typeof mount> | undefined;
async function render(profiles: IdentityProfile[] = [], active: string | null = null) {
  fake.state = initialState(structuredClone(profiles), active);
  await appState.refresh();
  app = mount(GitSection, { target: document.body });
  await settle();
}
beforeEach(() => {
  fake.calls = [];
  fake.suggestions = [];
  fake.broken = false;
  toasts.clear();
  document.body.innerHTML = '';
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
});

describe('GitSection', () => {
  it('saves each Git panel option with only its key', async () => {
    await render();
    const interval = control<HTMLSelectElement>(/Refresh interval/);
    expect([...interval.options].map((o) => o.textContent)).toEqual(['1 s', '2.5 s', '5 s', '10 s', '30 s']);
    expect(interval.value).toBe('2500');
    interval.value = '10000';
    interval.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();

    for (const name of [/Show untracked files/, /Confirm before restore/, /Checkpoint before agent runs/]) {
      const sw = control<HTMLInputElement>(name);
      expect(sw.getAttribute('role')).toBe('switch');
      expect(sw.checked).toBe(true);
      sw.click();
      await settle();
    }
    expect(writes()).toEqual([
      { refreshIntervalMs: 10000 },
      { showUntrackedFiles: false },
      { confirmBeforeRestore: false },
      { checkpointBeforeAgentRun: false },
    ]);
    expect(git()).toMatchObject({ refreshIntervalMs: 10000, showUntrackedFiles: false, confirmBeforeRestore: false, checkpointBeforeAgentRun: false });
    expect(control<HTMLInputElement>(/Show untracked files/).checked).toBe(false);
  });

  it('puts a failed change back and reports it as a toast', async () => {
    await render([ada], ada.id);
    fake.broken = true;
    const sw = control<HTMLInputElement>(/Confirm before restore/);
    sw.click();
    await settle();
    expect(sw.checked).toBe(true);
    const label = control<HTMLInputElement>(/Label/, profileBox('Work'));
    label.value = 'Office';
    label.dispatchEvent(new FocusEvent('blur'));
    await settle();
    expect(label.value).toBe('Work');
    expect(toasts.list.map((t) => t.text)).toEqual(['Disk full']) // the same error once;
    expect(git().confirmBeforeRestore).toBe(true);
  });

  it('shows the empty state and "Use Git config" without profiles', async () => {
    await render();
    expect(text()).toContain("No saved accounts. Meith will use each repository's Git config.");
    expect([...activeSelect().options].map((o) => o.textContent)).toEqual(['Use Git config']);
  });

  it('Add account creates a profile with a valid id and activates it', async () => {
    await render();
    button(/^Add account$/).click();
    await settle();
    expect(git().identityProfiles).toHaveLength(1);
    const p = git().identityProfiles[0];
    expect(p).toMatchObject({ label: 'New account', name: '', email: '' });
    expect(p.id).toMatch(/^gitacct_[0-9a-f]{12}$/);
    expect(git().activeIdentityProfileId).toBe(p.id);
    expect(writes()).toEqual([{ identityProfiles: [p], activeIdentityProfileId: p.id }]);
    expect(activeSelect().value).toBe(p.id);
    expect(text()).not.toContain('No saved accounts');
    // the new profile lacks a name and an email
    expect(profileBox('New account').textContent).toContain('Committing needs a name and an email');
    expect(document.activeElement).toBe(control(/Label/, profileBox('New account')));
  });

  it('saves an edited field on blur (not while typing) with the whole list', async () => {
    await render([ada, bob], ada.id);
    const name = control<HTMLInputElement>(/Name/, profileBox('Home'));
    name.value = 'Robert';
    name.dispatchEvent(new Event('input', { bubbles: true }));
    await settle();
    expect(writes()).toEqual([]);
    name.dispatchEvent(new FocusEvent('blur'));
    await settle();
    expect(writes()).toEqual([{ identityProfiles: [ada, { ...bob, name: 'Robert' }] }]);
    expect(git().identityProfiles[1].name).toBe('Robert');
    // blurring again without a change sends nothing
    name.dispatchEvent(new FocusEvent('blur'));
    await settle();
    expect(writes()).toHaveLength(1);
  });

  it('saves on Enter once, and shows the hint for an empty email', async () => {
    await render([ada], ada.id);
    const email = control<HTMLInputElement>(/Email/, profileBox('Work'));
    expect(profileBox('Work').textContent).not.toContain('Committing needs');
    email.value = '';
    email.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    email.dispatchEvent(new FocusEvent('blur'));
    await settle();
    expect(writes()).toEqual([{ identityProfiles: [{ ...ada, email: '' }] }]);
    expect(profileBox('Work').textContent).toContain('Committing needs a name and an email.');
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(email.getAttribute('aria-describedby')!)?.textContent).toContain('Committing needs');
  });

  it('Remove of the active profile sends the new list and clears the active choice', async () => {
    await render([ada, bob], bob.id);
    expect(activeSelect().value).toBe(bob.id);
    button(/^Remove Home$/).click();
    await settle();
    expect(writes()).toEqual([{ identityProfiles: [ada] }]);
    expect(git().activeIdentityProfileId).toBeNull();
    expect(activeSelect().value).toBe('');
    expect(profileBox('Home')).toBeUndefined();
  });

  it('the Active account select switches profiles and back to Git config', async () => {
    await render([ada, bob], null);
    const sel = activeSelect();
    expect([...sel.options].map((o) => o.textContent)).toEqual(['Use Git config', 'Work <ada@work.example>', 'Home <bob@home.example>']);
    sel.value = bob.id;
    sel.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    sel.value = '';
    sel.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(writes()).toEqual([{ activeIdentityProfileId: bob.id }, { activeIdentityProfileId: null }]);
  });

  it('Detect accounts lists suggestions; Add activates a saved name+email or appends a new profile', async () => {
    fake.suggestions = [
      { source: 'global', label: 'Global Git config', name: 'Ada', email: 'ada@work.example', detail: '~/.gitconfig' },
      { source: 'github-cli', label: 'GitHub ada', name: 'Ada', email: 'ada@users.noreply.github.com', username: 'ada', host: 'github.com', detail: 'gh auth status' },
    ];
    await render([ada, bob], bob.id);
    button(/^Detect accounts$/).click();
    await settle();
    expect(fake.calls.find((c) => c.tool === 'git_identity_detect')?.args).toEqual({ cwd: '/home/me/shop' });
    const list = document.querySelector('section[aria-labelledby="git-detected-title"]')!.textContent!.replace(/\s+/g, ' ');
    for (const want of ['Global Git config', 'Global config', '~/.gitconfig', 'GitHub CLI', 'gh auth status', 'ada@users.noreply.github.com']) {
      expect(list).toContain(want);
    }

    button(/^Add Global Git config/).click();
    await settle();
    expect(writes()).toEqual([{ activeIdentityProfileId: ada.id }]);
    expect(git().identityProfiles).toHaveLength(2);

    button(/^Add GitHub ada/).click();
    await settle();
    const added = git().identityProfiles[2];
    expect(added).toMatchObject({ label: 'GitHub ada', name: 'Ada', email: 'ada@users.noreply.github.com' });
    expect(added.id).toMatch(/^gitacct_[0-9a-f]{12}$/);
    expect(git().activeIdentityProfileId).toBe(added.id);
    expect(writes()[1]).toEqual({ identityProfiles: [ada, bob, added], activeIdentityProfileId: added.id });
  });
});

describe('SettingsView', () => {
  it('shows the Git section from the sections nav', async () => {
    fake.state = initialState([], null);
    await appState.refresh();
    app = mount(SettingsView, { target: document.body });
    await settle();
    button(/^Git$/).click();
    await settle();
    expect(document.querySelector('h2')?.textContent).toBe('Git');
    expect(button(/^Git$/).getAttribute('aria-current')).toBe('page');
    expect(text()).toContain('Commit identity');
    expect(button(/^Detect accounts$/)).toBeTruthy();
  });
});
