// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { AgentMessage, WorkspaceTab } from '../../bridge';

const fake = await vi.hoisted(async () => {
  const { createAgentFake } = await import('./testing');
  return createAgentFake();
});
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return { ...real, call: vi.fn(fake.call), subscribe: vi.fn(fake.subscribe) };
});

const { default: AgentView } = await import('./AgentView.svelte');
const { toasts } = await import('../../stores/toasts.svelte');
const { dialogs } = await import('../../stores/dialogs.svelte');
const { ui } = await import('../../stores/ui.svelte');
const { session, settle: settleAsync, transcript } = await import('./testing');

const tab: WorkspaceTab = {
  id: 'wtab_1', spaceId: 'space_1', kind: 'agent', title: 'Agent · shop', cwd: '/home/me/shop', active: true, pane: 'primary',
  terminalId: null, activeFilePath: null, openFilePaths: [], selectedGitFilePath: null, createdAt: 1,
};

const settle = async () => {
  await settleAsync();
  flushSync();
};
const $ = <T extends Element = HTMLElement>(sel: string) => document.querySelector(sel) as T | null;
const $$ = (sel: string) => [...document.querySelectorAll<HTMLElement>(sel)];
/** A button by its accessible text (aria-label, else its text without aria-hidden parts). */
const button = (name: string) =>
  [...document.querySelectorAll('button')].find((b) => {
    if (b.getAttribute('aria-label')) return b.getAttribute('aria-label') === name;
    const clone = b.cloneNode(true) as HTMLElement;
    clone.querySelectorAll('[aria-hidden="true"]').forEach((n) => n.remove());
    return clone.textContent?.trim() === name;
  }) as HTMLButtonElement | undefined;
const box = () => $<HTMLTextAreaElement>('textarea')!;
const labelled = (el: Element) => document.getElementById(el.getAttribute('aria-labelledby') ?? '')?.textContent;
function typeText(text: string) {
  box().value = text;
  box().dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}
function pressEnter(init: KeyboardEventInit = {}) {
  const e = new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true, ...init });
  box().dispatchEvent(e);
  flushSync();
  return e;
}

const richMessages = (): AgentMessage[] => [
  {
    id: 'msg_u', role: 'user', createdAt: 1, parts: [{ type: 'text', text: 'Please fix the login' }], toolCalls: [],
    attachments: [{ name: 'log.txt', path: '/home/me/shop/.meith/attachments/log.txt', size: 2048 }],
  },
  {
    id: 'msg_a', role: 'assistant', createdAt: 2, status: 'streaming',
    parts: [
      { type: 'thought', text: 'Let me look at the form' },
      { type: 'text', text: 'I will **read** it.\n\n<script>window.__pwned = 1</script>\n\n<img src=x onerror="window.__pwned = 2"> [bad](javascript:alert(1)) [docs](https://example.com/docs)' },
      { type: 'tool', toolCallId: 'call_read' },
      { type: 'text', text: '| file | lines |\n|---|---|\n| a.ts | 3 |' },
      { type: 'tool', toolCallId: 'call_write' },
      { type: 'tool', toolCallId: 'call_bash' },
    ],
    toolCalls: [
      { id: 'call_read', name: 'mcp__meith__read_file', source: 'meith', status: 'completed', args: { path: 'a.ts' }, result: { ok: true, content: { text: 'const a = 1' } }, startedAt: 1 },
      { id: 'call_write', name: 'mcp__meith__write_file', source: 'meith', status: 'awaiting_permission', capability: 'writes-files', args: { path: 'a.ts', content: 'x' }, startedAt: 2 },
      { id: 'call_bash', name: 'Bash', title: 'npm test', source: 'agent', status: 'failed', result: { ok: false, error: { code: 'TOOL_FAILED', message: 'exit status 1' } }, startedAt: 3 },
    ],
    plan: [
      { content: 'Read the form', status: 'completed' },
      { content: 'Fix the handler', status: 'in_progress' },
    ],
    error: { code: 'TOOL_FAILED', message: 'the agent stopped' },
  },
];

function withRichSession() {
  const s = session({ id: 'sess_1', pendingPermissions: 1, status: 'running' });
  fake.db.sessions = [s];
  fake.db.transcripts.sess_1 = transcript(s, richMessages(), {
    pendingPermissions: [
      { sessionId: 'sess_1', toolCallId: 'call_write', toolName: 'mcp__meith__write_file', source: 'meith', capability: 'writes-files', action: 'write files', args: { path: 'a.ts', content: 'x' }, createdAt: 3 },
      { sessionId: 'sess_1', toolCallId: 'call_later', toolName: 'mcp__meith__navigate', source: 'meith', capability: 'controls-browser', action: 'control the browser', args: { url: 'http://localhost:3000' }, createdAt: 4 },
    ],
  });
}

let app: ReturnType<typeof mount> | undefined;
async function render() {
  app = mount(AgentView, { target: document.body, props: { tab } });
  await settle();
}

// Answers the in-app confirmation the last click asked (it must have asked).
async function answerDialog(ok: boolean) {
  await settle();
  expect(dialogs.current).not.toBeNull();
  dialogs.answer(dialogs.current!.id, ok);
  await settle();
}

beforeEach(() => {
  dialogs.cancelAll();
  fake.reset();
  toasts.clear();
  ui.view = 'workspace';
  document.body.innerHTML = '';
  localStorage.clear();
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
  vi.unstubAllGlobals();
  delete (window as unknown as Record<string, unknown>).__pwned;
});

describe('AgentView transcript', () => {
  it('renders an assistant message part by part, in order', async () => {
    withRichSession();
    await render();
    const parts = [...$('[data-role="assistant"]')!.children].map((el) => {
      if (el.matches('details.thought')) return 'thought';
      if (el.matches('.md')) return 'text';
      if (el.matches('[data-testid="agent-tool-call"]')) return `tool:${el.getAttribute('data-tool')}`;
      if (el.matches('[data-testid="agent-permission-card"]')) return 'permission';
      if (el.matches('.plan')) return 'plan';
      if (el.matches('[data-testid="agent-error"]')) return 'error';
      return el.tagName;
    });
    expect(parts).toEqual(['thought', 'text', 'tool:read_file', 'text', 'tool:write_file', 'permission', 'tool:Bash', 'plan', 'error']);
  });

  it('shows user text with attachment chips, a collapsed thought, GFM tables and the error banner', async () => {
    withRichSession();
    await render();
    const user = $('[data-role="user"]')!;
    expect(user.querySelector('.bubble')?.textContent).toBe('Please fix the login');
    expect(user.querySelector('.chip')?.textContent).toContain('log.txt');
    const thought = $<HTMLDetailsElement>('details.thought')!;
    expect(thought.open).toBe(false);
    expect(thought.querySelector('summary')?.textContent).toBe('Thought');
    expect($('.md table td')?.textContent).toBe('a.ts');
    expect($('.md strong')?.textContent).toBe('read');
    expect($('[data-testid="agent-error"]')?.textContent).toBe('The agent stopped');
    expect($$('.plan li').map((li) => li.textContent?.replace(/\s+/g, ' ').trim())).toEqual(['✓ Read the form', '◐ Fix the handler']);
  });

  it('does not let script, event handlers or javascript: links through the Markdown', async () => {
    withRichSession();
    await render();
    const view = $('[data-testid="agent-transcript"]')!;
    expect(view.querySelector('script')).toBeNull();
    expect(view.querySelector('img')).toBeNull();
    expect(view.querySelector('[onerror]')).toBeNull();
    expect([...view.querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual(['https://example.com/docs']);
    expect(view.textContent).toContain('<script>window.__pwned = 1</script>');
    expect((window as unknown as Record<string, unknown>).__pwned).toBeUndefined();
  });

  it('shows tool cards: display name, status, agent badge, arguments and results', async () => {
    withRichSession();
    await render();
    const [read, write, bash] = $$('[data-testid="agent-tool-call"]');
    expect(read.querySelector('code.name')?.textContent).toBe('read_file');
    expect(read.getAttribute('data-status')).toBe('completed');
    expect(read.querySelector('[role="img"]')?.getAttribute('aria-label')).toBe('completed');
    expect(read.querySelector('[role="img"]')?.textContent).toBe('✓');
    const [args, result] = read.querySelectorAll('details');
    expect(args.querySelector('summary')?.textContent).toBe('Arguments');
    expect(JSON.parse(args.querySelector('pre')!.textContent!)).toEqual({ path: 'a.ts' });
    expect(JSON.parse(result.querySelector('pre')!.textContent!)).toEqual({ text: 'const a = 1' });
    expect(read.querySelector('.badge')).toBeNull();

    expect(write.querySelector('[role="img"]')?.getAttribute('aria-label')).toBe('awaiting permission');
    expect(bash.querySelector('.badge')?.textContent).toBe('agent');
    expect(bash.querySelector('[role="img"]')?.textContent).toBe('✗');
    const err = bash.querySelector<HTMLDetailsElement>('details.error')!;
    expect(err.open).toBe(true);
    expect(err.querySelector('pre')?.textContent).toBe('Exit status 1');
  });

  it('shows the empty state and the omitted note', async () => {
    await render();
    expect($('[data-testid="agent-transcript"]')?.textContent).toContain('Ask the agent to work in shop');
    unmount(app!);
    document.body.innerHTML = '';
    const s = session({ id: 'sess_1' });
    fake.db.sessions = [s];
    fake.db.transcripts.sess_1 = transcript(s, richMessages().slice(0, 1), { omitted: true });
    await render();
    expect($('.omitted')?.textContent).toBe('Earlier content omitted');
  });

  it('opens http(s) links in a browser tab and nothing else', async () => {
    withRichSession();
    await render();
    const a = $<HTMLAnchorElement>('.md a')!;
    const ev = new MouseEvent('click', { bubbles: true, cancelable: true });
    a.dispatchEvent(ev);
    await settle();
    expect(ev.defaultPrevented).toBe(true);
    expect(fake.callsOf('open_browser_tab')).toEqual([{ url: 'https://example.com/docs' }]);
  });
});

describe('AgentView permission cards', () => {
  it('asks inline at the tool call, and sends the decision with remember', async () => {
    withRichSession();
    await render();
    const cards = $$('[data-testid="agent-permission-card"]');
    expect(cards).toHaveLength(2);
    const card = cards[0];
    expect(card.getAttribute('role')).toBe('group');
    expect(labelled(card)).toBe('Permission required');
    expect(card.textContent).toContain('The agent wants to run write_file to write files.');
    expect(JSON.parse(card.querySelector('pre')!.textContent!)).toEqual({ path: 'a.ts', content: 'x' });
    const remember = card.querySelector<HTMLInputElement>('input[type="checkbox"]')!;
    expect(remember.closest('label')?.textContent?.trim()).toBe('Remember for this tool in this session');
    remember.click();
    flushSync();
    [...card.querySelectorAll('button')].find((b) => b.textContent === 'Allow')!.click();
    await settle();
    expect(fake.callsOf('agent_decide_permission')).toEqual([{ sessionId: 'sess_1', toolCallId: 'call_write', decision: 'allow', remember: true }]);
    // The transcript re-read would show the new status; the card is gone already.
    expect($$('[data-testid="agent-permission-card"]').map((c) => c.getAttribute('data-tool-call-id'))).toEqual(['call_later']);
  });

  it('shows requests without a visible tool call at the end, and denies them', async () => {
    withRichSession();
    await render();
    const last = $$('[data-testid="agent-permission-card"]')[1];
    expect(last.closest('[data-role="assistant"]')).toBeNull();
    expect(last.textContent).toContain('The agent wants to run navigate to control the browser.');
    [...last.querySelectorAll('button')].find((b) => b.textContent === 'Deny')!.click();
    await settle();
    expect(fake.callsOf('agent_decide_permission')).toEqual([{ sessionId: 'sess_1', toolCallId: 'call_later', decision: 'deny', remember: false }]);
  });
});

describe('AgentView composer', () => {
  beforeEach(() => {
    const s = session({ id: 'sess_1' });
    fake.db.sessions = [s];
    fake.db.transcripts.sess_1 = transcript(s, []);
  });

  it('sends on Enter, not on Shift+Enter, and streams the answer until the run ends', async () => {
    await render();
    expect(box().labels?.[0]?.textContent ?? document.querySelector(`label[for="${box().id}"]`)?.textContent).toBe('Message the agent');
    typeText('line one');
    const shift = pressEnter({ shiftKey: true });
    expect(shift.defaultPrevented).toBe(false);
    await settle();
    expect(fake.callsOf('agent_send_message')).toEqual([]);

    const enter = pressEnter();
    expect(enter.defaultPrevented).toBe(true);
    await settle();
    expect(fake.callsOf('agent_send_message')).toEqual([{ sessionId: 'sess_1', text: 'line one' }]);
    expect(box().value).toBe('');
    // The prompt shows at once, and the answer as it streams.
    expect($('[data-role="user"][data-pending="true"]')?.textContent).toContain('line one');
    fake.stream('Working on **it**');
    flushSync();
    expect($('[data-role="assistant"] .md strong')?.textContent).toBe('it');

    expect(button('Send')).toBeUndefined();
    button('Stop')!.click();
    await settle();
    expect(fake.callsOf('agent_cancel')).toEqual([{ sessionId: 'sess_1' }]);
    expect(button('Send')).toBeDefined();
    expect($('[data-pending="true"]')).toBeNull();
  });

  it('shows Stop while the session runs elsewhere', async () => {
    fake.db.sessions[0].status = 'running';
    await render();
    expect(button('Stop')).toBeDefined();
    typeText('more');
    pressEnter();
    await settle();
    expect(fake.callsOf('agent_send_message')).toEqual([]);
  });

  it('stages pasted files as chips, removes them, and sends the rest', async () => {
    await render();
    const paste = new Event('paste', { bubbles: true, cancelable: true });
    Object.defineProperty(paste, 'clipboardData', {
      value: { files: [new File(['hello'], 'a.txt'), new File(['bye'], 'b.txt')] },
    });
    box().dispatchEvent(paste);
    await settle();
    expect(paste.defaultPrevented).toBe(true);
    expect(fake.callsOf('agent_stage_attachment')).toEqual([
      { sessionId: 'sess_1', name: 'a.txt', data: btoa('hello') },
      { sessionId: 'sess_1', name: 'b.txt', data: btoa('bye') },
    ]);
    expect($$('[data-testid="agent-attachment"]').map((c) => c.querySelector('.name')?.textContent)).toEqual(['a.txt', 'b.txt']);
    button('Remove a.txt')!.click();
    flushSync();
    expect($$('[data-testid="agent-attachment"]')).toHaveLength(1);
    button('Send')!.click();
    await settle();
    expect(fake.callsOf('agent_send_message')).toEqual([
      { sessionId: 'sess_1', text: '', attachments: [{ name: 'b.txt', path: '/home/me/shop/.meith/attachments/b.txt', size: 3 }] },
    ]);
    fake.finish();
  });

  it('stages dropped files and refuses those over 10 MiB with a toast', async () => {
    await render();
    const big = new File(['x'], 'huge.iso');
    Object.defineProperty(big, 'size', { value: 11 * 1024 * 1024 });
    const drop = new Event('drop', { bubbles: true, cancelable: true });
    Object.defineProperty(drop, 'dataTransfer', { value: { types: ['Files'], files: [big, new File(['ok'], 'ok.txt')] } });
    $('[data-testid="agent-composer"]')!.dispatchEvent(drop);
    await settle();
    expect(fake.callsOf('agent_stage_attachment').map((a) => a.name)).toEqual(['ok.txt']);
    expect(toasts.list.map((t) => t.text)).toEqual(['"huge.iso" is 11.0 MiB: attachments are limited to 10 MiB each.']);
  });

  it('switches to Full access and warns while it is on', async () => {
    await render();
    expect($('[data-testid="agent-full-access-warning"]')).toBeNull();
    const access = $<HTMLSelectElement>('select[aria-label="Access"]')!;
    expect([...access.options].map((o) => o.textContent)).toEqual(['Ask for approval', 'Full access']);
    access.value = 'full';
    access.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(fake.callsOf('agent_update_session').filter((a) => 'autoAccept' in a)).toEqual([{ sessionId: 'sess_1', autoAccept: true }]);
    expect($('[data-testid="agent-full-access-warning"]')?.textContent).toContain('Full access: privileged tools run without asking');
  });

  it('offers the advertised models and reasoning levels, and free text without them', async () => {
    await render();
    const model = $<HTMLInputElement>('input[aria-label="Model"]')!;
    model.value = 'opus';
    model.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(fake.callsOf('agent_update_session').filter((a) => 'model' in a)).toEqual([{ sessionId: 'sess_1', model: 'opus' }]);
    unmount(app!);
    document.body.innerHTML = '';

    fake.db.transcripts.sess_1.options = [
      { id: 'model', name: 'Model', category: 'model', current: 'sonnet', values: [{ value: 'sonnet', name: 'Sonnet' }, { value: 'opus', name: 'Opus' }] },
      { id: 'effort', name: 'Effort', category: 'thought_level', current: 'low', values: [{ value: 'low', name: 'Low' }, { value: 'high', name: 'High' }] },
    ];
    await render();
    const select = $<HTMLSelectElement>('select[aria-label="Model"]')!;
    expect([...select.options].map((o) => o.value)).toEqual(['sonnet', 'opus']);
    const reasoning = $<HTMLSelectElement>('select[aria-label="Reasoning"]')!;
    reasoning.value = 'high';
    reasoning.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(fake.callsOf('agent_update_session').filter((a) => 'reasoning' in a)).toEqual([{ sessionId: 'sess_1', reasoning: 'high' }]);
  });

  it('names the agent and, with none configured, points to Settings → Agent', async () => {
    await render();
    expect(button('Agent Claude Code — open Settings → Agent')).toBeDefined();
    unmount(app!);
    document.body.innerHTML = '';

    fake.db.config.config.preset = '';
    await render();
    expect($('textarea')).toBeNull();
    expect($('[data-testid="agent-composer"]')?.textContent).toContain('No agent configured — pick one in Settings → Agent');
    button('Open Settings → Agent')!.click();
    expect(ui.view).toBe('settings');
  });
});

describe('AgentView session list', () => {
  beforeEach(() => {
    fake.db.sessions = [
      session({ id: 'sess_2', title: 'Add tests', updatedAt: Date.now() - 5 * 60_000, lastViewedAt: 0, unseen: true, pendingPermissions: 2 }),
      session({ id: 'sess_1', title: 'Fix login', updatedAt: Date.now() - 3 * 3600_000 }),
    ];
  });

  it('lists sessions with their time, unseen dot and pending-permission badge; opening one marks it viewed', async () => {
    // Open the older one first by collapsing nothing: the newest opens by default, so make it seen.
    fake.db.sessions[0].unseen = false;
    fake.db.sessions.push(session({ id: 'sess_0', title: 'Old one', updatedAt: 1000, unseen: true }));
    await render();
    const rows = $$('[data-testid="agent-session"]');
    expect(rows.map((r) => r.querySelector('.title')?.textContent)).toEqual(['Add tests', 'Fix login', 'Old one']);
    expect(rows[0].querySelector('button.row')?.getAttribute('aria-current')).toBe('true');
    expect(rows[0].querySelector('time')?.textContent).toBe('5m');
    expect(rows[1].querySelector('time')?.textContent).toBe('3h');
    expect(rows[0].querySelector('[data-testid="agent-permission-badge"]')?.getAttribute('aria-label')).toBe('2 permissions pending');
    expect(rows[2].querySelector('[data-testid="agent-unseen-dot"]')).not.toBeNull();
    expect(rows[1].querySelector('[data-testid="agent-unseen-dot"]')).toBeNull();

    rows[2].querySelector<HTMLButtonElement>('button.row')!.click();
    await settle();
    expect(fake.callsOf('agent_update_session')).toContainEqual({ sessionId: 'sess_0', viewed: true });
    expect(fake.callsOf('agent_get_transcript').at(-1)).toEqual({ sessionId: 'sess_0' });
    expect($$('[data-testid="agent-unseen-dot"]')).toHaveLength(0);
  });

  it('creates and deletes sessions (delete asks first)', async () => {
    await render();
    button('New session')!.click();
    await settle();
    expect(fake.callsOf('agent_create_session')).toEqual([{ cwd: '/home/me/shop', spaceId: 'space_1' }]);
    expect($$('[data-testid="agent-session"]')[0].querySelector('button.row')?.getAttribute('aria-current')).toBe('true');

    button('Delete session Fix login')!.click();
    await answerDialog(false);
    expect(fake.callsOf('agent_delete_session')).toEqual([]);
    button('Delete session Fix login')!.click();
    await answerDialog(true);
    expect(fake.callsOf('agent_delete_session')).toEqual([{ sessionId: 'sess_1' }]);
    expect($$('[data-testid="agent-session"]').map((r) => r.querySelector('.title')?.textContent)).not.toContain('Fix login');
  });

  it('collapses the list and remembers it for the space', async () => {
    await render();
    button('Hide sessions')!.click();
    flushSync();
    expect($('[data-testid="agent-sessions"]')).toBeNull();
    expect(JSON.parse(localStorage.getItem('meith.agentSessionsCollapsedBySpace')!)).toEqual({ space_1: true });
    unmount(app!);
    document.body.innerHTML = '';
    await render();
    expect($('[data-testid="agent-sessions"]')).toBeNull();
    button('Show sessions')!.click();
    flushSync();
    expect($('[data-testid="agent-sessions"]')).not.toBeNull();
  });
});

/** The parts of a checkpoint these tests do not look at. */
const checkpointRefs = { ref: '', root: '/repo', baseHead: '', commit: '', indexCommit: '' };

describe('AgentView checkpoints', () => {
  const patch = [
    'diff --git a/src/a.ts b/src/a.ts',
    'index 1111111..2222222 100644',
    '--- a/src/a.ts',
    '+++ b/src/a.ts',
    '@@ -1,2 +1,2 @@',
    ' keep',
    '-const a = 1;',
    '+const a = 2;',
    'diff --git a/old.txt b/old.txt',
    'deleted file mode 100644',
    '--- a/old.txt',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-gone',
    '',
  ].join('\n');

  beforeEach(() => {
    fake.db.sessions = [session({ id: 'sess_1' })];
    fake.db.checkpoints = [
      { ...checkpointRefs, id: 'cp_1', createdAt: '2025-01-01T10:00:00.000Z', label: 'Before run 1', sessionId: 'sess_1' },
      { ...checkpointRefs, id: 'cp_2', createdAt: '2025-01-01T12:00:00.000Z', label: 'Before run 2', sessionId: 'sess_1' },
      { ...checkpointRefs, id: 'cp_other', createdAt: '2025-01-01T13:00:00.000Z', label: 'Elsewhere', sessionId: 'sess_9' },
    ];
    fake.db.comparison = {
      left: 'cp_2', right: 'worktree', stat: { files: 2, additions: 1, deletions: 2 }, patch,
      files: [
        { path: 'old.txt', status: 'deleted', additions: 0, deletions: 1, binary: false },
        { path: 'src/a.ts', status: 'modified', additions: 1, deletions: 1, binary: false },
      ],
    };
  });

  it("lists the session's checkpoints newest first, compares one and restores one", async () => {
    await render();
    const toggle = [...document.querySelectorAll('button')].find((b) => b.textContent?.includes('Checkpoints'))!;
    expect(toggle.textContent?.replace(/\s+/g, ' ').trim()).toBe('Checkpoints 2');
    toggle.click();
    flushSync();
    const items = $$('[data-testid="agent-checkpoint"]');
    expect(items.map((i) => i.querySelector('.label')?.textContent)).toEqual(['Before run 2', 'Before run 1']);

    button('Compare Before run 2 with the working tree')!.click();
    await settle();
    expect(fake.callsOf('git_checkpoint_compare')).toEqual([{ cwd: '/home/me/shop', left: 'cp_2', includePatch: true }]);
    const cmp = $('[data-testid="agent-checkpoint-compare"]')!;
    expect(cmp.textContent).toContain('2 files changed since this checkpoint');
    expect([...cmp.querySelectorAll('.files .path')].map((p) => p.textContent)).toEqual(['old.txt', 'src/a.ts']);
    // The first file's diff: the deleted line, in red.
    expect(cmp.querySelector('.row.del .text')?.textContent).toBe('gone');
    [...cmp.querySelectorAll<HTMLButtonElement>('.files button')][1].click();
    await settle();
    expect($('[data-testid="agent-checkpoint-compare"] .row.add .text')?.textContent).toBe('const a = 2;');
    expect($('[data-testid="agent-checkpoint-compare"] .row.del .text')?.textContent).toBe('const a = 1;');

    button('Restore Before run 1')!.click();
    await answerDialog(true);
    expect(fake.callsOf('git_checkpoint_restore')).toEqual([{ cwd: '/home/me/shop', id: 'cp_1', confirm: true }]);
    expect(toasts.list.at(-1)?.text).toContain('cp_pre');
  });

  it('does not restore when the confirmation is declined', async () => {
    await render();
    [...document.querySelectorAll('button')].find((b) => b.textContent?.includes('Checkpoints'))!.click();
    flushSync();
    button('Restore Before run 1')!.click();
    await answerDialog(false);
    expect(fake.callsOf('git_checkpoint_restore')).toEqual([]);
  });

  it('hides the section quietly outside a git repository', async () => {
    fake.db.checkpoints = null;
    await render();
    expect([...document.querySelectorAll('button')].some((b) => b.textContent?.includes('Checkpoints'))).toBe(false);
    expect(toasts.list).toEqual([]);
  });
});

describe('AgentView opened from elsewhere', () => {
  it("selects the session another view asked this tab to open (the Audit panel's click-through)", async () => {
    fake.db.sessions = [session({ id: 'sess_1', title: 'First' }), session({ id: 'sess_2', title: 'Second' })];
    await render();
    expect(fake.db.calls.filter((c) => c.tool === 'agent_get_transcript').map((c) => c.args.sessionId)).toEqual(['sess_1']);
    ui.agentSessionRequest = { tabId: 'wtab_other', sessionId: 'sess_2' };
    await settle();
    expect(ui.agentSessionRequest).not.toBeNull();
    ui.agentSessionRequest = { tabId: tab.id, sessionId: 'sess_2' };
    await settle();
    expect(ui.agentSessionRequest).toBeNull();
    expect(fake.db.calls.filter((c) => c.tool === 'agent_get_transcript').map((c) => c.args.sessionId)).toEqual(['sess_1', 'sess_2']);
    ui.agentSessionRequest = null;
  });
});
