import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const fake = await vi.hoisted(async () => {
  const { createAgentFake } = await import('../features/agent/testing');
  return createAgentFake();
});

vi.mock('../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../bridge')>();
  return { ...real, call: vi.fn(fake.call), subscribe: vi.fn(fake.subscribe) };
});

const { AgentStore, COLLAPSED_KEY, FALLBACK_MS, MAX_ATTACHMENT_BYTES, modelOption, reasoningOption } = await import('./agents.svelte');
const { toasts } = await import('./toasts.svelte');
const { session, settle, transcript } = await import('../features/agent/testing');

const hint = (sessionId: string, kind: string) => fake.emit('agent_changed', { sessionId, kind });
const count = (tool: string) => fake.callsOf(tool).length;

let store: InstanceType<typeof AgentStore>;
let storage: Map<string, string>;

beforeEach(() => {
  fake.reset();
  toasts.clear();
  storage = new Map();
  vi.stubGlobal('localStorage', {
    getItem: (k: string) => storage.get(k) ?? null,
    setItem: (k: string, v: string) => void storage.set(k, v),
    removeItem: (k: string) => void storage.delete(k),
  });
  fake.db.sessions = [
    session({ id: 'sess_b', title: 'Newer', updatedAt: 5_000, lastViewedAt: 1_000, unseen: true }),
    session({ id: 'sess_a', title: 'Older', updatedAt: 3_000 }),
  ];
});
afterEach(() => {
  store?.stop();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function started(): Promise<InstanceType<typeof AgentStore>> {
  store = new AgentStore('space_1', '/home/me/shop');
  store.start();
  await settle();
  return store;
}

/** The parts of a checkpoint these tests do not look at. */
const checkpointRefs = { ref: '', root: '/repo', baseHead: '', commit: '', indexCommit: '' };

describe('AgentStore', () => {
  it('lists the space sessions, opens the newest, reads its transcript and marks it viewed', async () => {
    await started();
    expect(fake.callsOf('agent_list_sessions')[0]).toEqual({ spaceId: 'space_1' });
    expect(store.sessions.map((s) => s.id)).toEqual(['sess_b', 'sess_a']);
    expect(store.selectedId).toBe('sess_b');
    expect(fake.callsOf('agent_get_transcript')).toEqual([{ sessionId: 'sess_b' }]);
    expect(fake.callsOf('agent_update_session')).toEqual([{ sessionId: 'sess_b', viewed: true }]);
    expect(store.sessions[0].unseen).toBe(false);
    expect(store.config?.config.preset).toBe('claude');
  });

  it('re-reads on agent_changed: the list always, the transcript only for the open session', async () => {
    await started();
    const lists = count('agent_list_sessions');
    const reads = count('agent_get_transcript');

    hint('sess_a', 'transcript');
    await settle();
    expect(count('agent_list_sessions')).toBe(lists + 1);
    expect(count('agent_get_transcript')).toBe(reads);

    fake.db.transcripts.sess_b = transcript(fake.db.sessions[0], [
      { id: 'msg_1', role: 'user', createdAt: 1, parts: [{ type: 'text', text: 'hi' }], toolCalls: [] },
    ]);
    hint('sess_b', 'permission');
    await settle();
    expect(count('agent_get_transcript')).toBe(reads + 1);
    expect(store.transcript?.messages?.[0].id).toBe('msg_1');

    hint('', 'sessions'); // "" = many: the open transcript too
    await settle();
    expect(count('agent_get_transcript')).toBe(reads + 2);
  });

  it('coalesces a burst of hints into at most one more read of each', async () => {
    await started();
    const lists = count('agent_list_sessions');
    const reads = count('agent_get_transcript');
    for (let i = 0; i < 10; i++) hint('sess_b', 'transcript');
    await settle();
    expect(count('agent_list_sessions') - lists).toBeLessThanOrEqual(2);
    expect(count('agent_get_transcript') - reads).toBeLessThanOrEqual(2);
    expect(count('agent_get_transcript') - reads).toBeGreaterThanOrEqual(1);
  });

  it('closes the open session when it is deleted elsewhere and opens the next one', async () => {
    await started();
    fake.db.sessions = fake.db.sessions.filter((s) => s.id !== 'sess_b');
    hint('sess_b', 'deleted');
    await settle();
    expect(store.selectedId).toBe('sess_a');
    expect(store.transcript?.session.id).toBe('sess_a');
  });

  it('re-reads on a slow timer only while a session runs', async () => {
    vi.useFakeTimers();
    store = new AgentStore('space_1', '/home/me/shop');
    store.start();
    await vi.advanceTimersByTimeAsync(10);
    const idle = count('agent_list_sessions');
    await vi.advanceTimersByTimeAsync(FALLBACK_MS * 3);
    expect(count('agent_list_sessions')).toBe(idle);

    fake.db.sessions[1].status = 'running';
    hint('sess_a', 'sessions');
    await vi.advanceTimersByTimeAsync(10);
    const running = count('agent_list_sessions');
    await vi.advanceTimersByTimeAsync(FALLBACK_MS * 2 + 10);
    expect(count('agent_list_sessions')).toBeGreaterThanOrEqual(running + 2);

    fake.db.sessions[1].status = 'idle';
    await vi.advanceTimersByTimeAsync(FALLBACK_MS + 10);
    const after = count('agent_list_sessions');
    await vi.advanceTimersByTimeAsync(FALLBACK_MS * 3);
    expect(count('agent_list_sessions')).toBe(after);
  });

  it('sends a prompt with the staged attachments, streams the answer and re-reads when the run ends', async () => {
    await started();
    const file = new File([new Uint8Array([104, 105])], 'notes.txt');
    const att = await store.stageFile(file);
    expect(fake.callsOf('agent_stage_attachment')).toEqual([{ sessionId: 'sess_b', name: 'notes.txt', data: 'aGk=' }]);
    expect(store.staged).toEqual([att]);

    const done = store.send('  fix the bug  ');
    await settle();
    expect(fake.db.run?.args).toEqual({ sessionId: 'sess_b', text: 'fix the bug', attachments: [att] });
    expect(store.staged).toEqual([]);
    expect(store.running).toBe(true);
    fake.stream('Hello ');
    fake.stream('world');
    expect(store.live?.answer).toBe('Hello world');
    expect(store.live?.text).toBe('fix the bug');

    const reads = count('agent_get_transcript');
    fake.finish();
    expect(await done).toBe(true);
    await settle();
    expect(store.live).toBeNull();
    expect(count('agent_get_transcript')).toBeGreaterThan(reads);
  });

  it('creates a session when none is open before sending', async () => {
    fake.db.sessions = [];
    await started();
    expect(store.selectedId).toBe('');
    const done = store.send('hello');
    await settle();
    expect(fake.callsOf('agent_create_session')).toEqual([{ cwd: '/home/me/shop', spaceId: 'space_1' }]);
    expect(fake.db.run?.args).toEqual({ sessionId: 'sess_new1', text: 'hello' });
    fake.finish();
    await done;
  });

  it('runs prompts of two sessions at once, each with its own live answer', async () => {
    await started();
    const first = store.send('one');
    await settle();
    expect(store.running).toBe(true);
    await store.select('sess_a');
    expect(store.running).toBe(false);
    expect(store.live).toBeNull();
    const second = store.send('two');
    await settle();
    expect(fake.db.runs.map((r) => r.args)).toEqual([
      { sessionId: 'sess_b', text: 'one' },
      { sessionId: 'sess_a', text: 'two' },
    ]);
    fake.db.runs[0].onEvent?.({ kind: 'partial_text', text: 'for b' });
    fake.db.runs[1].onEvent?.({ kind: 'partial_text', text: 'for a' });
    expect(store.live?.answer).toBe('for a');
    expect(store.runs.sess_b.answer).toBe('for b');
    await store.cancel();
    expect(await second).toBe(true);
    expect(store.runs.sess_b).toBeDefined();
    fake.db.runs[0].resolve({ ok: true, content: {} });
    expect(await first).toBe(true);
    expect(store.runs).toEqual({});
  });

  it('stops a run: agent_cancel, and the call is aborted without a toast', async () => {
    await started();
    const done = store.send('go');
    await settle();
    const signal = fake.db.run?.signal;
    await store.cancel();
    expect(fake.callsOf('agent_cancel')).toEqual([{ sessionId: 'sess_b' }]);
    expect(signal?.aborted).toBe(true);
    expect(await done).toBe(true);
    expect(toasts.list).toEqual([]);
  });

  it('turns a refused send into a toast and gives the attachments back', async () => {
    await started();
    await store.stageFile(new File(['x'], 'a.txt'));
    fake.db.fail.agent_send_message = { code: 'CONFLICT', message: 'A run is already in progress' };
    expect(await store.send('again')).toBe(false);
    expect(toasts.list.map((t) => t.text)).toEqual(['A run is already in progress']);
    expect(store.staged.map((a) => a.name)).toEqual(['a.txt']);
  });

  it('refuses attachments over 10 MiB with a toast and no call', async () => {
    await started();
    const big = { name: 'huge.bin', size: MAX_ATTACHMENT_BYTES + 1, arrayBuffer: async () => new ArrayBuffer(0) } as unknown as File;
    expect(await store.stageFile(big)).toBeUndefined();
    expect(count('agent_stage_attachment')).toBe(0);
    expect(toasts.list[0].text).toContain('limited to 10 MiB');
  });

  it('decides permissions with the card arguments', async () => {
    await started();
    expect(await store.decide('call_1', 'allow', true)).toBe(true);
    expect(fake.callsOf('agent_decide_permission')).toEqual([{ sessionId: 'sess_b', toolCallId: 'call_1', decision: 'allow', remember: true }]);
    expect(store.decided.call_1).toBe(true);
  });

  it('makes failed actions toasts, never exceptions', async () => {
    await started();
    fake.db.fail.agent_create_session = { code: 'TOOL_FAILED', message: 'disk full' };
    await expect(store.createSession()).resolves.toBeUndefined();
    fake.db.fail.agent_update_session = { code: 'VALIDATION_ERROR', message: 'bad model' };
    await expect(store.updateSession({ model: 'x' })).resolves.toBe(false);
    expect(toasts.list.map((t) => t.text)).toEqual(['Disk full', 'Bad model']);
  });

  it('keeps read failures in error rather than toasting on every hint', async () => {
    fake.db.fail.agent_list_sessions = { code: 'UNKNOWN_TOOL', message: 'Unknown tool "agent_list_sessions"' };
    await started();
    expect(store.error).toBe('This version of meith cannot do that.');
    expect(store.loaded).toBe(true);
    expect(toasts.list).toEqual([]);
  });

  it('deletes a session only after confirmation', async () => {
    await started();
    expect(await store.deleteSession('sess_a', () => false)).toBe(false);
    expect(count('agent_delete_session')).toBe(0);
    expect(await store.deleteSession('sess_b', () => true)).toBe(true);
    expect(fake.callsOf('agent_delete_session')).toEqual([{ sessionId: 'sess_b' }]);
    await settle();
    expect(store.selectedId).toBe('sess_a');
  });

  it('lists the open session checkpoints newest first, compares and restores them', async () => {
    fake.db.checkpoints = [
      { ...checkpointRefs, id: 'cp_1', createdAt: '2025-01-01T10:00:00.000Z', label: 'Before run 1', sessionId: 'sess_b' },
      { ...checkpointRefs, id: 'cp_x', createdAt: '2025-01-01T11:00:00.000Z', label: 'Other session', sessionId: 'sess_a' },
      { ...checkpointRefs, id: 'cp_2', createdAt: '2025-01-01T12:00:00.000Z', label: 'Before run 2', sessionId: 'sess_b' },
    ];
    await started();
    await store.loadCheckpoints();
    expect(fake.callsOf('git_checkpoint_list')).toEqual([{ cwd: '/home/me/shop' }]);
    expect(store.checkpoints?.map((c) => c.id)).toEqual(['cp_2', 'cp_1']);

    fake.db.comparison = { left: 'cp_2', right: 'worktree', stat: { files: 0, additions: 0, deletions: 0 }, files: [], patch: '' };
    await store.compare('cp_2');
    expect(fake.callsOf('git_checkpoint_compare')).toEqual([{ cwd: '/home/me/shop', left: 'cp_2', includePatch: true }]);
    expect(store.comparison?.id).toBe('cp_2');

    expect(await store.restore('cp_1', () => false)).toBeUndefined();
    expect(count('git_checkpoint_restore')).toBe(0);
    const r = await store.restore('cp_1', () => true);
    expect(fake.callsOf('git_checkpoint_restore')).toEqual([{ cwd: '/home/me/shop', id: 'cp_1', confirm: true }]);
    expect(r?.preRestore.id).toBe('cp_pre');
    expect(toasts.list.at(-1)?.kind).toBe('info');
    expect(toasts.list.at(-1)?.text).toContain('cp_pre');
  });

  it('hides checkpoints when the folder is not a git repository', async () => {
    fake.db.checkpoints = null;
    await started();
    await store.loadCheckpoints();
    expect(store.checkpoints).toBeNull();
    expect(toasts.list).toEqual([]);
  });

  it('keeps the collapsed session list per space in localStorage', async () => {
    await started();
    store.toggleCollapsed();
    expect(JSON.parse(storage.get(COLLAPSED_KEY) ?? '{}')).toEqual({ space_1: true });
    expect(new AgentStore('space_1', '/x').collapsed).toBe(true);
    expect(new AgentStore('space_2', '/x').collapsed).toBe(false);
    store.toggleCollapsed();
    expect(JSON.parse(storage.get(COLLAPSED_KEY) ?? '{}')).toEqual({});
  });

  it('finds the model and reasoning options by category or id', () => {
    const opts = [
      { id: 'm', name: 'Model', category: 'model', current: 'a', values: [] },
      { id: 'effort', name: 'Effort', category: 'other', current: 'low', values: [] },
    ];
    expect(modelOption(opts)?.id).toBe('m');
    expect(reasoningOption(opts)?.id).toBe('effort');
    expect(reasoningOption([{ id: 'x', name: 'T', category: 'thought_level', current: '', values: null }])?.id).toBe('x');
    expect(modelOption([])).toBeUndefined();
  });
});
