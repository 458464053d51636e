// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { Rule } from '../../bridge/generated/tools';

// An in-memory backend holding the approval rules.
const fake = vi.hoisted(() => ({ rules: [] as Rule[], calls: [] as [string, Record<string, unknown>][] }));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    call: vi.fn(async (tool: string, args: Record<string, unknown> = {}) => {
      fake.calls.push([tool, args]);
      switch (tool) {
        case 'permission_list_rules':
          return { ok: true, content: { rules: structuredClone(fake.rules) } };
        case 'permission_revoke_rule': {
          const before = fake.rules.length;
          fake.rules = fake.rules.filter((r) => r.id !== args.id);
          if (fake.rules.length === before) return { ok: false, error: { code: 'VALIDATION_ERROR', message: 'No such approval rule: it may have been revoked already.' } };
          return { ok: true, content: { revoked: args.id, rules: structuredClone(fake.rules) } };
        }
        default:
          return { ok: false, error: { code: 'UNKNOWN_TOOL', message: tool } };
      }
    }),
  };
});

const { default: ApprovalRules } = await import('./ApprovalRules.svelte');

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};

let app: ReturnType<typeof mount> | undefined;
beforeEach(() => {
  fake.calls = [];
  document.body.innerHTML = '';
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
});

describe('ApprovalRules', () => {
  it('lists the rules and revokes one', async () => {
    fake.rules = [
      { id: 'rule_a', folder: '/home/me/todo-api', capability: 'writes-files', createdAt: '2026-12-01T10:00:00Z' },
      { id: 'rule_b', folder: '/home/me/shop', capability: 'starts-process', createdAt: '2026-12-01T10:00:00Z' },
    ];
    app = mount(ApprovalRules, { target: document.body });
    await settle();
    const items = () => [...document.querySelectorAll('li')].map((li) => li.textContent!.replace(/\s+/g, ' ').trim());
    expect(items()).toEqual([expect.stringContaining('/home/me/todo-api'), expect.stringContaining('/home/me/shop')]);
    expect(items()[0]).toContain('writes-files');

    (document.querySelector('button[aria-label="Revoke writes-files in /home/me/todo-api"]') as HTMLButtonElement).click();
    await settle();
    expect(fake.calls.at(-1)).toEqual(['permission_revoke_rule', { id: 'rule_a' }]);
    expect(items()).toEqual([expect.stringContaining('/home/me/shop')]);
  });

  it('says when there are none', async () => {
    fake.rules = [];
    app = mount(ApprovalRules, { target: document.body });
    await settle();
    expect(document.body.textContent).toContain('No rules');
    expect(document.querySelector('li')).toBeNull();
  });

  it('shows a failed revoke and re-reads the list', async () => {
    fake.rules = [{ id: 'rule_a', folder: '/p', capability: 'writes-files', createdAt: '2026-12-01T10:00:00Z' }];
    app = mount(ApprovalRules, { target: document.body });
    await settle();
    fake.rules = []; // revoked elsewhere meanwhile
    (document.querySelector('li button') as HTMLButtonElement).click();
    await settle();
    expect(document.querySelector('[role="alert"]')?.textContent).toContain('No such approval rule');
    expect(document.querySelector('li')).toBeNull();
  });
});
