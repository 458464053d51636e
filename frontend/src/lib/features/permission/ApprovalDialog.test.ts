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
  origin: { kind: 'terminal', label: 'Terminal · todo-api', terminalId: 'term_1', exe: '/usr/local/bin/meith', folder: '/home/me/shop' },
  scopes: ['allow_once', 'allow_terminal', 'allow_15_minutes', 'allow_folder', 'deny'],
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
    expect(text).toContain('from Terminal · todo-api');
  });

  it('offers the scopes of the request as buttons, Deny first and Allow once the default', () => {
    const labels = [...document.querySelectorAll('.actions button')].map((b) => b.textContent!.trim());
    expect(labels).toEqual(['Deny', 'Always in this folder', 'For 15 minutes', 'This terminal', 'Allow once']);
    expect(button(/^\s*Allow once\s*$/).classList.contains('primary')).toBe(true);
  });

  it('shows only the scopes the request offers', async () => {
    fake.pending = [{ ...request('appr_9'), origin: { kind: 'process', label: 'node in /srv', exe: '/usr/bin/node', folder: '/srv' }, scopes: ['allow_once', 'allow_15_minutes', 'deny'] }];
    await approvals.refresh();
    flushSync();
    const labels = [...document.querySelectorAll('.actions button')].map((b) => b.textContent!.trim());
    expect(labels).toEqual(['Deny', 'For 15 minutes', 'Allow once']);
    expect(document.querySelector('[role="alertdialog"]')!.textContent).toContain('from node in /srv');
  });

  it('answers the oldest request first, then shows the next', async () => {
    button(/^\s*Allow once\s*$/).click();
    await settle();
    expect(fake.decisions).toEqual([['appr_1', 'allow_once']]);
    expect(document.querySelector('[role="alertdialog"]')?.textContent).not.toContain('more waiting');
    button(/^\s*This terminal\s*$/).click();
    await settle();
    expect(fake.decisions.at(-1)).toEqual(['appr_2', 'allow_terminal']);
    expect(document.querySelector('[role="alertdialog"]')).toBeNull();
  });

  it('denies on Escape', async () => {
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    await settle();
    expect(fake.decisions).toEqual([['appr_1', 'deny']]);
  });

  const key = (k: string, init: KeyboardEventInit = {}) => {
    const target = (document.activeElement as HTMLElement | null) ?? document.body;
    const e = new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...init });
    target.dispatchEvent(e);
    return e;
  };

  it('takes focus on the default button when it opens', async () => {
    await settle();
    expect(document.activeElement).toBe(button(/^\s*Allow once\s*$/));
  });

  it('allows once on Enter, the default', async () => {
    await settle();
    (document.activeElement as HTMLElement).blur();
    key('Enter');
    await settle();
    expect(fake.decisions).toEqual([['appr_1', 'allow_once']]);
  });

  it('Enter on a focused scope button chooses that scope', async () => {
    await settle();
    button(/^\s*For 15 minutes\s*$/).focus();
    key('Enter');
    await settle();
    expect(fake.decisions).toEqual([['appr_1', 'allow_15_minutes']]);
  });

  it('Tab and Shift+Tab cycle inside the dialog', async () => {
    await settle();
    const buttons = [...document.querySelectorAll<HTMLButtonElement>('.actions button')];
    const last = buttons.at(-1)!; // Allow once, focused
    expect(document.activeElement).toBe(last);
    expect(key('Tab').defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(buttons[0]);
    key('Tab', { shiftKey: true });
    expect(document.activeElement).toBe(last);
    key('Tab', { shiftKey: true });
    expect(document.activeElement).toBe(buttons.at(-2));
    // Focus that escaped the dialog is brought back in.
    const outside = document.createElement('button');
    document.body.appendChild(outside);
    outside.focus();
    key('Tab');
    expect(document.querySelector('[role="alertdialog"]')!.contains(document.activeElement)).toBe(true);
    expect(fake.decisions).toEqual([]);
  });

  it('keeps keys from reaching the page behind it', async () => {
    await settle();
    const behind = vi.fn();
    document.body.addEventListener('keydown', behind);
    key('Escape');
    await settle();
    document.body.removeEventListener('keydown', behind);
    expect(behind).not.toHaveBeenCalled();
    expect(fake.decisions).toEqual([['appr_1', 'deny']]);
  });
});
