import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolResult } from '../bridge';
import { installFakeWindow, type FakeWindow } from '../bridge/testing';

// The window's bridge runs for real against a stand-in for the Wails window
// (lib/bridge/testing): Call hands out call ids and answers with a
// tool_result event the way app/binding.go does; Cancel answers CANCELLED.
let win: FakeWindow;
let answer: (tool: string, args: Record<string, unknown>) => ToolResult | 'hang' = () => ({ ok: true, content: {} });

beforeAll(() => {
  win = installFakeWindow();
  win.answer = (tool, args) => answer(tool, args);
});
afterAll(() => vi.unstubAllGlobals());
beforeEach(() => {
  win.app.Call.mockClear();
  win.app.Cancel.mockClear();
});

const { ai, isNoAgentError } = await import('./complete');
const { BridgeError } = await import('../bridge');

describe('ai.complete', () => {
  it('calls ai_complete with the request and resolves with the text', async () => {
    answer = () => ({ ok: true, content: { text: 'feat: add login', truncated: false } });
    const r = await ai.complete({ prompt: 'diff', systemPrompt: 'one line', maxChars: 160, timeoutMs: 45000 }, { cwd: '/repo' });
    expect(r).toEqual({ text: 'feat: add login', truncated: false });
    expect(win.app.Call).toHaveBeenCalledWith(
      'ai_complete',
      { prompt: 'diff', systemPrompt: 'one line', maxChars: 160, timeoutMs: 45000 },
      { cwd: '/repo', caller: 'renderer' },
    );
  });

  it('sends only the fields given and reports truncation', async () => {
    answer = () => ({ ok: true, content: { text: 'x'.repeat(10), truncated: true } });
    await expect(ai.complete({ prompt: 'hi' })).resolves.toEqual({ text: 'xxxxxxxxxx', truncated: true });
    expect(win.app.Call).toHaveBeenCalledWith('ai_complete', { prompt: 'hi' }, { caller: 'renderer' });
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
    expect(win.app.Cancel).toHaveBeenCalledWith(win.lastCallId());
  });

  it('passes the bridge error through when the call cannot start', async () => {
    win.setAttached(false);
    try {
      await expect(ai.complete({ prompt: 'p' })).rejects.toMatchObject({ code: 'BRIDGE_UNAVAILABLE' });
    } finally {
      win.setAttached(true);
    }
    expect(isNoAgentError(new Error('No agent configured'))).toBe(false);
  });
});
