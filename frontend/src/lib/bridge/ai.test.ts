import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClientInfo, ToolResult } from './types';

// The window's bridge runs for real against a stand-in for the Wails window:
// Call hands out call ids and answers with a tool_result event the way
// app/binding.go does; Cancel answers CANCELLED.
const listeners = new Map<string, Set<(p: unknown) => void>>();
const emit = (name: string, payload: unknown) => {
  for (const cb of [...(listeners.get(name) ?? [])]) cb(payload);
};
let answer: (tool: string, args: Record<string, unknown>) => ToolResult | 'hang' = () => ({ ok: true, content: {} });
let seq = 0;
const app = {
  Call: vi.fn(async (tool: string, args: Record<string, unknown>, _ci: ClientInfo) => {
    const callId = `call_${String(++seq).padStart(12, '0')}`;
    const result = answer(tool, args);
    if (result !== 'hang') setTimeout(() => emit('tool_result', { callId, result }), 0);
    return callId;
  }),
  Cancel: vi.fn(async (callId: string) => {
    setTimeout(() => emit('tool_result', { callId, result: { ok: false, error: { code: 'CANCELLED', message: 'Tool "ai_complete" was cancelled' } } }), 0);
  }),
};
const runtime = {
  EventsOn: (name: string, cb: (p: unknown) => void) => {
    let set = listeners.get(name);
    if (!set) listeners.set(name, (set = new Set()));
    set.add(cb);
    return () => set.delete(cb);
  },
};

beforeAll(() => {
  vi.stubGlobal('go', { app: { App: app } });
  vi.stubGlobal('runtime', runtime);
});
afterAll(() => vi.unstubAllGlobals());
beforeEach(() => {
  app.Call.mockClear();
  app.Cancel.mockClear();
});

const { ai, isNoAgentError } = await import('./ai');
const { BridgeError } = await import('./errors');

describe('ai.complete', () => {
  it('calls ai_complete with the request and resolves with the text', async () => {
    answer = () => ({ ok: true, content: { text: 'feat: add login', truncated: false } });
    const r = await ai.complete({ prompt: 'diff', systemPrompt: 'one line', maxChars: 160, timeoutMs: 45000 }, { cwd: '/repo' });
    expect(r).toEqual({ text: 'feat: add login', truncated: false });
    expect(app.Call).toHaveBeenCalledWith(
      'ai_complete',
      { prompt: 'diff', systemPrompt: 'one line', maxChars: 160, timeoutMs: 45000 },
      { cwd: '/repo', caller: 'renderer' },
    );
  });

  it('sends only the fields given and reports truncation', async () => {
    answer = () => ({ ok: true, content: { text: 'x'.repeat(10), truncated: true } });
    await expect(ai.complete({ prompt: 'hi' })).resolves.toEqual({ text: 'xxxxxxxxxx', truncated: true });
    expect(app.Call).toHaveBeenCalledWith('ai_complete', { prompt: 'hi' }, { caller: 'renderer' });
  });

  it.each([
    ['no agent', { code: 'VALIDATION_ERROR', message: 'No agent configured: choose one in Settings → Agent' }, true],
    ['a timeout', { code: 'TIMEOUT', message: 'the agent did not answer within 45s' }, false],
    ['an agent failure', { code: 'TOOL_FAILED', message: 'claude-agent-acp exited: not logged in' }, false],
  ])('rejects with a BridgeError on %s', async (_name, error, noAgent) => {
    answer = () => ({ ok: false, error: error as ToolResult['error'] });
    const err = await ai.complete({ prompt: 'p' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BridgeError);
    expect(err).toMatchObject(error);
    expect(isNoAgentError(err)).toBe(noAgent);
  });

  it('rejects with PROTOCOL_ERROR when the result has no text', async () => {
    answer = () => ({ ok: true, content: {} });
    await expect(ai.complete({ prompt: 'p' })).rejects.toMatchObject({ code: 'PROTOCOL_ERROR' });
  });

  it('cancels the call when the signal aborts', async () => {
    answer = () => 'hang';
    const ctl = new AbortController();
    const p = ai.complete({ prompt: 'p' }, { signal: ctl.signal });
    await new Promise((r) => setTimeout(r, 0));
    ctl.abort();
    await expect(p).rejects.toMatchObject({ name: 'BridgeError', code: 'CANCELLED' });
    expect(app.Cancel).toHaveBeenCalledWith('call_' + String(seq).padStart(12, '0'));
  });

  it('passes the bridge error through when the call cannot start', async () => {
    vi.stubGlobal('go', undefined);
    try {
      await expect(ai.complete({ prompt: 'p' })).rejects.toMatchObject({ code: 'BRIDGE_UNAVAILABLE' });
    } finally {
      vi.stubGlobal('go', { app: { App: app } });
    }
    expect(isNoAgentError(new Error('No agent configured'))).toBe(false);
  });
});
