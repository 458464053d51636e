// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { ApprovalRequest } from '../../bridge';

// An in-memory stand-in for the bridge: one pending request and a record of decisions.
const fake = vi.hoisted(() => ({
  pending: [] as ApprovalRequest[],
  decisions: [] as [string, string][],
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    pendingApprovals: vi.fn(async () => structuredClone(fake.pending)),
    decideApproval: vi.fn(async (id: string, d: string) => {
      fake.decisions.push([id, d]);
      fake.pending = fake.pending.filter((p) => p.id !== id);
    }),
    subscribe: vi.fn(() => () => {}),
  };
});

const { default: ApprovalDialog } = await import('./ApprovalDialog.svelte');
const { approvals } = await import('../../stores/approvals.svelte');

const request = (id: string): ApprovalRequest => ({
  id,
  createdAt: new Date().toISOString(),
  expiresAt: new Date(Date.now() + 60_000).toISOString(),
  toolName: 'app_set_debug_mode',
  description: 'Turn debug logging on or off.',
  capabilities: ['writes-files'],
  capability: 'writes-files',
  caller: 'cli',
  sessionId: 'socket:1234',
  peer: { pid: 4242, uid: 1000, exe: '/usr/local/bin/meith', cwd: '/home/me/shop' },
  argsSummary: '{"enabled":true}',
});

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};

let app: ReturnType<typeof mount> | undefined;
beforeEach(async () => {
  fake.pending = [request('appr_1'), request('appr_2')];
  fake.decisions = [];
  document.body.innerHTML = '';
  await approvals.refresh();
  app = mount(ApprovalDialog, { target: document.body });
  flushSync();
});
afterEach(() => {
  if (app) unmount(app);
});

const button = (name: RegExp) =>
  [...document.querySelectorAll('button')].find((b) => name.test(b.textContent ?? '')) as HTMLButtonElement;

describe('ApprovalDialog', () => {
  it('names the process, the tool, the capability and the redacted arguments', () => {
    const dialog = document.querySelector('[role="alertdialog"]');
    expect(dialog).not.toBeNull();
    const text = dialog!.textContent!.replace(/\s+/g, ' ');
    for (const want of ['app_set_debug_mode', 'pid 4242', '/usr/local/bin/meith', '/home/me/shop', 'writes-files', '{"enabled":true}', '1 more waiting']) {
      expect(text).toContain(want);
    }
    expect(button(/^\s*Allow writes-files for this connection\s*$/)).toBeTruthy();
  });

  it('answers the oldest request first, then shows the next', async () => {
    button(/^\s*Allow once\s*$/).click();
    await settle();
    expect(fake.decisions).toEqual([['appr_1', 'allow_once']]);
    expect(document.querySelector('[role="alertdialog"]')?.textContent).not.toContain('more waiting');
    button(/for this connection/).click();
    await settle();
    expect(fake.decisions.at(-1)).toEqual(['appr_2', 'allow_connection']);
    expect(document.querySelector('[role="alertdialog"]')).toBeNull();
  });

  it('denies on Escape', async () => {
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    await settle();
    expect(fake.decisions).toEqual([['appr_1', 'deny']]);
  });
});
