// @vitest-environment happy-dom
// Settings → Storage (issue 18): every collection with its size, the
// support bundle, and the clean-ups, each behind the window's confirmation
// and followed by a toast of what was freed and fresh sizes; the audit's
// retention settings.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { AppState } from '../../bridge';
import type { StorageCollection } from './storage';
import { defaultSettings } from '../../testing/settings';

// An in-memory user data folder: the clean-ups empty the collections they
// name and answer what they freed; set_app_settings merges the audit patch.
const fake = vi.hoisted(() => ({
  collections: [] as StorageCollection[],
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  state: null as unknown as AppState,
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  const empty = (name: string) => {
    const c = fake.collections.find((x) => x.name === name)!;
    const freed = { deletedBytes: c.sizeBytes, deletedFiles: c.files };
    c.sizeBytes = 0;
    c.files = 0;
    return freed;
  };
  return {
    ...real,
    call: vi.fn(async (tool: string, raw: Record<string, unknown> = {}) => {
      const args = JSON.parse(JSON.stringify(raw)) as Record<string, unknown>;
      fake.calls.push({ tool, args });
      switch (tool) {
        case 'storage_list_collections':
          return { ok: true, content: { dataDirectory: '/home/me/.config/meith', collections: JSON.parse(JSON.stringify(fake.collections)) } };
        case 'storage_clear_collection':
          if (args.confirm !== true) return { ok: false, error: { code: 'VALIDATION_ERROR', message: 'confirm must be true' } };
          return { ok: true, content: { collection: args.name, ...empty(String(args.name)) } };
        case 'storage_delete_old_screenshots':
          return { ok: true, content: { ...empty('screenshots'), cutoff: '2026-11-01T00:00:00Z' } };
        case 'storage_prune_stale_agent_sessions': {
          const f = empty('agent_sessions');
          return { ok: true, content: { collection: 'agent_sessions', deletedSessions: 2, deletedBytes: f.deletedBytes, cutoff: '2026-11-01T00:00:00Z' } };
        }
        case 'storage_export_support_bundle':
          return { ok: true, content: { path: '/home/me/.config/meith/artifacts/support-bundle-1.json', bytes: 20480, bundle: {} } };
        case 'app_get_state':
          return { ok: true, content: JSON.parse(JSON.stringify(fake.state)) };
        case 'set_app_settings': {
          const s = fake.state.settings as unknown as Record<string, unknown>;
          s.audit = { ...(s.audit as object), ...((args.settings as { audit: object }).audit) };
          return { ok: true, content: { settings: s } };
        }
        default:
          return { ok: false, error: { code: 'TOOL_NOT_FOUND', message: tool } };
      }
    }),
    subscribe: vi.fn(() => () => {}),
    listTools: vi.fn(async () => []),
    pendingApprovals: vi.fn(async () => []),
  };
});

const { default: StorageSection } = await import('./StorageSection.svelte');
const { default: ConfirmDialog } = await import('../../components/ConfirmDialog.svelte');
const { appState } = await import('../../stores/appState.svelte');
const { toasts } = await import('../../stores/toasts.svelte');
const { dialogs } = await import('../../stores/dialogs.svelte');
const { humanBytes, freedText } = await import('./storage');

const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === name || b.getAttribute('aria-label') === name) as HTMLButtonElement;
const size = (name: string) => document.querySelector(`[data-testid="size-${name}"]`)?.textContent;
const dialog = () => document.querySelector('[role="alertdialog"]') as HTMLElement | null;
const col = (name: string, kind: StorageCollection['kind'], sizeBytes: number, files: number): StorageCollection => ({
  name, kind, path: `/home/me/.config/meith/${name}`, description: `the ${name}`, exists: true, sizeBytes, files, clearable: true,
});

let app: ReturnType<typeof mount>[] = [];
let written: string[] = [];
beforeEach(async () => {
  document.body.innerHTML = '';
  written = [];
  vi.stubGlobal('navigator', { clipboard: { writeText: async (t: string) => void written.push(t) } });
  fake.calls = [];
  fake.collections = [
    col('state', 'json', 2048, 1),
    col('logs', 'jsonl', 512 * 1024, 3),
    col('audit', 'jsonl', 5 * 1024 * 1024, 2),
    col('artifacts', 'directory', Math.round(3.2 * 1024 * 1024), 14),
    col('screenshots', 'directory', 700, 4),
    col('agent_sessions', 'directory', 10 * 1024, 5),
  ];
  fake.state = { spaces: [], activeSpaceId: '', workspaceTabs: [], browserTabs: [], projects: [], settings: { ...defaultSettings(), audit: { retentionDays: 90, maxMB: 200 } } } as unknown as AppState;
  appState.state = JSON.parse(JSON.stringify(fake.state));
  toasts.clear();
  app = [mount(StorageSection, { target: document.body }), mount(ConfirmDialog, { target: document.body })];
  await settle();
});
afterEach(() => {
  dialogs.cancelAll();
  for (const a of app) unmount(a);
  app = [];
  appState.state = null;
  vi.unstubAllGlobals();
});

describe('StorageSection', () => {
  it('lists the data directory and every collection with its kind, size in human units and description', async () => {
    expect(document.body.textContent).toContain('/home/me/.config/meith');
    const rows = [...document.querySelectorAll('tbody tr')].map((r) => [...r.children].map((c) => c.textContent!.trim()));
    expect(rows).toEqual([
      ['state', 'json', '2 KB', '1', 'the state'],
      ['logs', 'jsonl', '512 KB', '3', 'the logs'],
      ['audit', 'jsonl', '5 MB', '2', 'the audit'],
      ['artifacts', 'directory', '3.2 MB', '14', 'the artifacts'],
      ['screenshots', 'directory', '700 B', '4', 'the screenshots'],
      ['agent_sessions', 'directory', '10 KB', '5', 'the agent_sessions'],
    ]);
    button('Copy data directory').click();
    await settle();
    expect(written).toEqual(['/home/me/.config/meith']);
  });

  it('clears artifacts only after the confirmation, toasts what was freed and shows the new size', async () => {
    button('Clear artifacts…').click();
    await settle();
    expect(dialog()?.textContent).toContain('3.2 MB in 14 files');
    button('Cancel').click();
    await settle();
    expect(fake.calls.some((c) => c.tool === 'storage_clear_collection')).toBe(false);
    expect(size('artifacts')).toBe('3.2 MB');

    button('Clear artifacts…').click();
    await settle();
    button('Clear artifacts').click();
    await settle();
    expect(fake.calls.find((c) => c.tool === 'storage_clear_collection')?.args).toEqual({ name: 'artifacts', confirm: true });
    expect(toasts.list.map((t) => t.text)).toContain('Freed 3.2 MB (14 files)');
    expect(size('artifacts')).toBe('0 B');
  });

  it('deletes old screenshots and prunes agent sessions with the days given', async () => {
    const days = (label: string, v: number) => {
      const input = document.querySelector(`input[aria-label="${label}"]`) as HTMLInputElement;
      input.value = String(v);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      flushSync();
    };
    days('Screenshot age in days', 7);
    button('Delete old screenshots…').click();
    await settle();
    expect(dialog()?.textContent).toContain('older than 7 days');
    button('Delete screenshots').click();
    await settle();
    expect(fake.calls.find((c) => c.tool === 'storage_delete_old_screenshots')?.args).toEqual({ olderThanDays: 7, confirm: true });
    expect(toasts.list.map((t) => t.text)).toContain('Freed 700 B (4 files)');

    days('Agent session idle days', 0);
    expect(button('Prune agent sessions…').disabled).toBe(true);
    days('Agent session idle days', 60);
    button('Prune agent sessions…').click();
    await settle();
    button('Prune sessions').click();
    await settle();
    expect(fake.calls.find((c) => c.tool === 'storage_prune_stale_agent_sessions')?.args).toEqual({ olderThanDays: 60, confirm: true });
    expect(toasts.list.map((t) => t.text)).toContain('Freed 10 KB (2 sessions)');
    expect(size('agent_sessions')).toBe('0 B');
  });

  it('exports a support bundle and says where it was written', async () => {
    button('Export support bundle').click();
    await settle();
    expect(document.querySelector('[role="status"]')?.textContent).toContain('/home/me/.config/meith/artifacts/support-bundle-1.json');
  });

  it('saves the audit retention, and refuses values out of range', async () => {
    const input = (id: string, v: number) => {
      const el = document.getElementById(id) as HTMLInputElement;
      el.value = String(v);
      el.dispatchEvent(new Event('input', { bubbles: true }));
      flushSync();
    };
    expect((document.getElementById('audit-days') as HTMLInputElement).value).toBe('90');
    expect(button('Save retention').disabled).toBe(true);
    input('audit-days', 0);
    expect(button('Save retention').disabled).toBe(true);
    expect(document.querySelector('[role="alert"]')?.textContent).toContain('1–3650');
    input('audit-days', 30);
    input('audit-mb', 500);
    button('Save retention').click();
    await settle();
    expect(fake.calls.find((c) => c.tool === 'set_app_settings')?.args).toEqual({ settings: { audit: { retentionDays: 30, maxMB: 500 } } });
  });
});

describe('humanBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1 KB'],
    [Math.round(3.2 * 1024 * 1024), '3.2 MB'],
    [150 * 1024 * 1024, '150 MB'],
    [5 * 1024 ** 3, '5 GB'],
  ])('%d bytes is %s', (n, text) => expect(humanBytes(n)).toBe(text));
  it('says what a clean-up freed', () => expect(freedText(1536, 1)).toBe('Freed 1.5 KB (1 file)'));
});
