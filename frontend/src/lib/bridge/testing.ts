// lib/bridge/testing: a stand-in for the Wails window, for tests outside
// lib/bridge that run the real bridge end to end (only lib/bridge may touch
// Wails, see boundary.test.ts). Tests only: nothing in the app imports it.

import { vi } from 'vitest';
import type { ClientInfo, ToolResult } from './types';

/** How the fake window answers a Call: a result (sent as a tool_result event) or 'hang' (no answer until a cancel). */
export type FakeAnswer = (tool: string, args: Record<string, unknown>) => ToolResult | 'hang';

/** The fake window that {@link installFakeWindow} puts in place of the Wails one. */
export interface FakeWindow {
  /** The bound methods the bridge's call uses: Call hands out call ids, Cancel answers CANCELLED. */
  app: {
    Call: ReturnType<typeof vi.fn<(tool: string, args: Record<string, unknown>, ci: ClientInfo) => Promise<string>>>;
    Cancel: ReturnType<typeof vi.fn<(callId: string) => Promise<void>>>;
  };
  /** Answers every Call from now on (default: an ok result with empty content). */
  answer: FakeAnswer;
  /** The id of the last call handed out. */
  lastCallId(): string;
  /** Takes the bound methods away (calls then fail with BRIDGE_UNAVAILABLE) or puts them back. */
  setAttached(attached: boolean): void;
}

/**
 * Installs a fake Wails window as globals, answering calls the way
 * app/binding.go does: Call returns a call id and later emits the tool_result
 * event; Cancel emits a CANCELLED result. Undo it with vi.unstubAllGlobals().
 */
export function installFakeWindow(): FakeWindow {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const emit = (name: string, payload: unknown) => {
    for (const cb of [...(listeners.get(name) ?? [])]) cb(payload);
  };
  let seq = 0;
  const callId = (n: number) => `call_${String(n).padStart(12, '0')}`;
  const win: FakeWindow = {
    app: {
      Call: vi.fn(async (tool: string, args: Record<string, unknown>, _ci: ClientInfo) => {
        const id = callId(++seq);
        const result = win.answer(tool, args);
        if (result !== 'hang') setTimeout(() => emit('tool_result', { callId: id, result }), 0);
        return id;
      }),
      Cancel: vi.fn(async (id: string) => {
        setTimeout(() => emit('tool_result', { callId: id, result: { ok: false, error: { code: 'CANCELLED', message: 'The call was cancelled' } } }), 0);
      }),
    },
    answer: () => ({ ok: true, content: {} }),
    lastCallId: () => callId(seq),
    setAttached: (attached) => vi.stubGlobal('go', attached ? { app: { App: win.app } } : undefined),
  };
  vi.stubGlobal('runtime', {
    EventsOn: (name: string, cb: (p: unknown) => void) => {
      let set = listeners.get(name);
      if (!set) listeners.set(name, (set = new Set()));
      set.add(cb);
      return () => set.delete(cb);
    },
  });
  win.setAttached(true);
  return win;
}
