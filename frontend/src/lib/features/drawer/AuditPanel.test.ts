// @vitest-environment happy-dom
// The drawer's Audit panel (issue 18): a virtualised list of audit_query's
// entries newest first, paged by cursor, filtered, live on the "audit"
// hint, with a details pane; refused and denied calls stand out in words.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { AppState } from '../../bridge';
import type { AuditEntry, AuditQueryArgs } from '../audit/types';
import { defaultSettings } from '../../testing/settings';

// An in-memory audit trail answering audit_query the way the contract says:
// newest first, filters, limit, and an opaque cursor (here an offset).
const fake = vi.hoisted(() => ({
  trail: [] as AuditEntry[],
  queries: [] as Record<string, unknown>[],
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  hints: new Map<string, Set<(p: unknown) => void>>(),
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    call: vi.fn(async (tool: string, raw: Record<string, unknown> = {}) => {
      const args = JSON.parse(JSON.stringify(raw)) as Record<string, unknown>;
      fake.calls.push({ tool, args });
      if (tool === 'audit_query') {
        fake.queries.push(args);
        const q = args as AuditQueryArgs;
        const newestFirst = [...fake.trail].reverse().filter(
          (e) =>
            (!q.decisions || (q.decisions as string[]).includes(e.decision)) &&
            (!q.callers || (q.callers as string[]).includes(e.caller)) &&
            (!q.tools || q.tools.includes(e.toolName)) &&
            (!q.search || JSON.stringify(e).includes(q.search)),
        );
        const from = Number(q.cursor ?? 0);
        const limit = q.limit ?? 200;
        const entries = newestFirst.slice(from, from + limit);
        const next = from + limit < newestFirst.length ? String(from + limit) : '';
        return { ok: true, content: next ? { entries, nextCursor: next } : { entries } };
      }
      if (tool === 'open_workspace_tab') return { ok: true, content: { id: 'tab_agent', kind: 'agent', spaceId: 'space_1' } };
      if (tool === 'app_get_state') return { ok: true, content: null };
      return { ok: true, content: {} };
    }),
    subscribe: vi.fn((topic: string, fn: (p: unknown) => void) => {
      let set = fake.hints.get(topic);
      if (!set) fake.hints.set(topic, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    }),
    listTools: vi.fn(async () => []),
    pendingApprovals: vi.fn(async () => []),
  };
});

const { default: AuditPanel } = await import('./AuditPanel.svelte');
const { default: Drawer } = await import('./Drawer.svelte');
const { audit } = await import('../audit/auditStore.svelte');
const { appState } = await import('../../stores/appState.svelte');
const { ui } = await import('../../stores/ui.svelte');

let seq = 0;
function entry(over: Partial<AuditEntry> = {}): AuditEntry {
  seq++;
  return {
    id: `audit_${String(seq).padStart(12, '0')}`,
    ts: new Date(Date.UTC(2026, 11, 1, 10, 0, 0) + seq * 1000).toISOString(),
    caller: 'renderer',
    toolName: 'app_get_state',
    capabilities: ['read'],
    decision: 'allow',
    cwd: '/home/me/shop',
    argsSummary: '{}',
    resultSummary: '{"ok":true}',
    durationMs: 3,
    ...over,
  };
}

const settle = async () => {
  for (let i = 0; i < 8; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
/** Waits (by turns of the event loop, not by a clock) until cond holds. */
async function until(cond: () => boolean, what: string) {
  for (let i = 0; i < 400; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 1));
    flushSync();
  }
  throw new Error(`never happened: ${what}`);
}
const list = () => document.querySelector('[role="listbox"][aria-label="Audit entries"]') as HTMLElement;
const rows = () => [...list().querySelectorAll('[role="option"]')] as HTMLElement[];
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === name || b.getAttribute('aria-label') === name) as HTMLButtonElement | undefined;
const hint = () => {
  for (const fn of fake.hints.get('audit') ?? []) fn({ count: 1 });
};
const scrollTo = (top: number) => {
  list().scrollTop = top;
  list().dispatchEvent(new Event('scroll'));
  flushSync();
};

let app: ReturnType<typeof mount> | undefined;
beforeEach(() => {
  document.body.innerHTML = '';
  fake.trail = [];
  fake.queries = [];
  fake.calls = [];
  seq = 0;
  audit.entries = [];
  audit.nextCursor = '';
  audit.selectedId = '';
  audit.newCount = 0;
  audit.atTop = true;
  audit.pointerOver = false;
  audit.filters = { caller: '', tool: '', decision: '', spaceId: '', since: '', search: '' };
  appState.state = {
    spaces: [{ id: 'space_1', name: 'shop', color: '#888', cwd: '/home/me/shop', projectId: null, createdAt: 1, updatedAt: 1 }],
    activeSpaceId: 'space_1',
    workspaceTabs: [],
    browserTabs: [],
    projects: [],
    settings: defaultSettings(),
  } as unknown as AppState;
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
  appState.state = null;
  ui.agentSessionRequest = null;
});

async function mountPanel() {
  app = mount(AuditPanel, { target: document.body });
  await settle();
}

describe('AuditPanel', () => {
  it('is the drawer tabpanel named Audit', async () => {
    ui.drawerTab = 'audit';
    app = mount(Drawer, { target: document.body });
    await settle();
    const panel = document.querySelector('[role="tabpanel"]')!;
    expect(panel.getAttribute('aria-label')).toBe('Audit');
    expect(panel.querySelector('[aria-label="Audit entries"]')).not.toBeNull();
  });

  it('renders only the rows in view of thousands, newest first, and reads older pages by cursor when scrolled down', async () => {
    for (let i = 0; i < 5000; i++) fake.trail.push(entry());
    await mountPanel();
    expect(audit.entries.length).toBe(200);
    expect(rows().length).toBeGreaterThan(0);
    expect(rows().length).toBeLessThan(60);
    expect(rows()[0].id).toBe(`audit-row-${fake.trail[4999].id}`);
    expect(fake.queries[0]).toEqual({ limit: 200 });

    scrollTo(200 * 24 - 480);
    await until(() => audit.entries.length === 400, 'the second page');
    expect(fake.queries.at(-1)).toEqual({ limit: 200, cursor: '200' });
    expect(rows().length).toBeLessThan(60);
    // The rows shown are those at the scroll position, not the first ones.
    const shown = rows().map((r) => Number(r.getAttribute('aria-posinset')));
    expect(Math.min(...shown)).toBeGreaterThan(150);
  });

  it('makes denied, refused, cancelled and timed-out calls stand out with an icon and words', async () => {
    fake.trail.push(entry({ decision: 'allow' }), entry({ decision: 'deny' }), entry({ decision: 'refused' }), entry({ decision: 'cancelled' }), entry({ decision: 'timeout' }), entry({ decision: 'approved' }));
    await mountPanel();
    const look = rows().map((r) => [r.querySelector('.dec')!.textContent!.trim(), r.classList.contains('bad')]);
    expect(look).toEqual([
      ['✔ approved', false],
      ['⏱ timed out', true],
      ['⊘ cancelled', true],
      ['✋ refused', true],
      ['⛔ denied', true],
      ['✓ allowed', false],
    ]);
  });

  it('sends the filters and the search to audit_query', async () => {
    fake.trail.push(entry({ caller: 'cli', decision: 'deny', toolName: 'git_push' }), entry());
    await mountPanel();
    const select = (label: string) => [...document.querySelectorAll('label')].find((l) => l.textContent!.trim().startsWith(label))!.querySelector('select, input') as HTMLSelectElement | HTMLInputElement;
    const change = (el: HTMLSelectElement | HTMLInputElement, v: string) => {
      el.value = v;
      if (el instanceof HTMLInputElement) el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    };
    change(select('Decision'), 'deny');
    change(select('Caller'), 'cli');
    change(select('Time'), '1h');
    change(select('Tool'), 'git_push');
    change(select('Space'), 'space_1');
    await settle();
    const search = document.querySelector('input[aria-label="Search the audit trail"]') as HTMLInputElement;
    search.value = 'push';
    search.dispatchEvent(new Event('input', { bubbles: true }));
    await until(() => fake.queries.some((q) => q.search === 'push'), 'the search query');
    expect(fake.queries.at(-1)).toEqual({ limit: 200, callers: ['cli'], tools: ['git_push'], decisions: ['deny'], spaceId: 'space_1', since: '1h', search: 'push' });
  });

  it('tails live: new entries go on top at the top of the list, and are counted in a pill when scrolled down', async () => {
    for (let i = 0; i < 300; i++) fake.trail.push(entry());
    await mountPanel();
    fake.trail.push(entry({ toolName: 'git_commit' }));
    hint();
    await until(() => audit.entries[0]?.toolName === 'git_commit', 'the new entry on top');
    expect(rows()[0].querySelector('.tool')!.textContent).toBe('git_commit');

    scrollTo(2000);
    fake.trail.push(entry({ toolName: 'fs_write' }), entry({ toolName: 'fs_read' }));
    hint();
    await until(() => !!button('↑ 2 new'), 'the "2 new" pill');
    expect(audit.entries[0].toolName).toBe('git_commit');
    button('↑ 2 new')!.click();
    await until(() => audit.entries[0]?.toolName === 'fs_read', 'the new entries merged');
    expect(audit.entries[1].toolName).toBe('fs_write');
    expect(button('↑ 2 new')).toBeUndefined();
  });

  it('keeps the rows still under the pointer: new entries wait in the pill until it leaves', async () => {
    for (let i = 0; i < 20; i++) fake.trail.push(entry());
    await mountPanel();
    const under = rows()[3];
    list().dispatchEvent(new PointerEvent('pointerenter'));
    fake.trail.push(entry({ toolName: 'git_commit' }));
    hint();
    await until(() => !!button('↑ 1 new'), 'the "1 new" pill');
    expect(rows()[3]).toBe(under);
    expect(audit.entries[0].toolName).not.toBe('git_commit');
    list().dispatchEvent(new PointerEvent('pointerleave'));
    await until(() => audit.entries[0]?.toolName === 'git_commit', 'merged once the pointer left');
  });

  it('shows every field of an entry, the summaries pretty-printed, and opens an agent caller\'s session', async () => {
    fake.trail.push(
      entry({
        caller: 'agent',
        toolName: 'fs_write',
        decision: 'refused',
        sessionId: 'agent_sess_1',
        spaceId: 'space_1',
        requestId: 'req_42',
        approvalId: 'appr_7',
        decidedBy: 'agent-card',
        waitedMs: 1234,
        clientPid: 4242,
        clientExe: '/usr/bin/claude',
        argsSummary: '{"path":"a.txt","content":"[redacted]"}',
        resultSummary: '{"ok":false,"error":{"code":"PERMISSION_DENIED"}}',
      }),
    );
    await mountPanel();
    rows()[0].click();
    flushSync();
    const details = document.querySelector('[aria-label="Audit entry details"]') as HTMLElement;
    expect(details).not.toBeNull();
    const text = details.textContent!;
    for (const s of ['req_42', 'appr_7', 'refused by agent-card', '1234 ms', 'pid 4242', '/usr/bin/claude', 'agent_sess_1', 'shop', '/home/me/shop']) expect(text).toContain(s);
    const pres = [...details.querySelectorAll('pre')].map((p) => p.textContent);
    expect(pres[0]).toBe('{\n  "path": "a.txt",\n  "content": "[redacted]"\n}');
    expect(pres[1]).toContain('"code": "PERMISSION_DENIED"');

    button('Open agent session')!.click();
    await until(() => ui.agentSessionRequest !== null, 'the session request');
    expect(fake.calls.some((c) => c.tool === 'open_workspace_tab' && c.args.kind === 'agent')).toBe(true);
    expect(ui.agentSessionRequest).toEqual({ tabId: 'tab_agent', sessionId: 'agent_sess_1' });
  });
});
