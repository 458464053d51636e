import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { BridgeError, createBridge, toBridgeError, type ToolDescriptor, type ToolEvent, type ToolOutput, type ToolResult } from './index';
import type { PingResult } from './generated/tools';
import type { BoundApp, WailsHost } from './wails';

/** A stand-in for window.go / window.runtime. */
function fakeHost() {
  const listeners = new Map<string, Set<(...data: unknown[]) => void>>();
  let seq = 0;
  const app = {
    ListTools: vi.fn(async (): Promise<ToolDescriptor[]> => [
      { name: 'app_health', description: 'Health', inputSchema: {}, capabilities: ['read-only'] },
    ]),
    Call: vi.fn(async (_tool: string, _args: Record<string, unknown>, _ci: unknown) => `call_${String(++seq).padStart(12, '0')}`),
    Cancel: vi.fn(async (_id: string) => {}),
    PendingApprovals: vi.fn(async () => null),
    DecideApproval: vi.fn(async (_id: string, _d: string) => {}),
    OpenFolderDialog: vi.fn(async (_title: string) => '/home/me/project'),
    OpenFileDialog: vi.fn(async (_title: string, _filters: { displayName: string; pattern: string }[]) => '/home/me/board.tgz'),
    BrowserInput: vi.fn(async (_tabId: string, _ev: unknown) => {}),
    BrowserViewport: vi.fn(async (_tabId: string, _w: number, _h: number, _s: number) => {}),
    BrowserStop: vi.fn(async (_tabId: string) => {}),
    TerminalWrite: vi.fn(async (_id: string, _data: string) => {}),
    TerminalResize: vi.fn(async (_id: string, _cols: number, _rows: number) => {}),
  } satisfies BoundApp;
  const runtime = {
    EventsOn: vi.fn((name: string, cb: (...data: unknown[]) => void) => {
      let set = listeners.get(name);
      if (!set) listeners.set(name, (set = new Set()));
      set.add(cb);
      return () => set.delete(cb);
    }),
  };
  const host: WailsHost = { go: { app: { App: app } }, runtime };
  const emit = (name: string, payload: unknown) => {
    for (const cb of [...(listeners.get(name) ?? [])]) cb(payload);
  };
  return { host, app, runtime, emit, listeners };
}

const ok = (content: unknown): ToolResult => ({ ok: true, content });
const tick = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('toBridgeError', () => {
  it('parses a coded Go error string', () => {
    const e = toBridgeError('PERMISSION_DENIED: writes-files needs a grant');
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.code).toBe('PERMISSION_DENIED');
    expect(e.message).toBe('writes-files needs a grant');
  });

  it('keeps multi-line messages', () => {
    expect(toBridgeError('VALIDATION_ERROR: bad\nline two').message).toBe('bad\nline two');
  });

  it('maps uncoded and unknown-coded strings to BRIDGE_ERROR with the whole text', () => {
    expect(toBridgeError('something broke')).toMatchObject({ code: 'BRIDGE_ERROR', message: 'something broke' });
    expect(toBridgeError('NOT_A_CODE: x')).toMatchObject({ code: 'BRIDGE_ERROR', message: 'NOT_A_CODE: x' });
  });

  it('accepts Error objects and passes BridgeErrors through', () => {
    expect(toBridgeError(new Error('TIMEOUT: slow'))).toMatchObject({ code: 'TIMEOUT', message: 'slow' });
    const be = new BridgeError('CANCELLED', 'x');
    expect(toBridgeError(be)).toBe(be);
    expect(toBridgeError(undefined)).toMatchObject({ code: 'BRIDGE_ERROR', message: 'undefined' });
  });
});

describe('bound methods', () => {
  it('lists tools', async () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    await expect(b.listTools()).resolves.toHaveLength(1);
  });

  it('turns a string rejection into a typed BridgeError', async () => {
    const f = fakeHost();
    f.app.DecideApproval.mockRejectedValueOnce('VALIDATION_ERROR: unknown decision "maybe"');
    const b = createBridge(() => f.host);
    const err = await b.decideApproval('apr_1', 'allow_once').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BridgeError);
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR', message: 'unknown decision "maybe"' });
    expect(f.app.DecideApproval).toHaveBeenCalledWith('apr_1', 'allow_once');
  });

  it('opens the folder dialog and types its failures', async () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    await expect(b.openFolderDialog('Pick')).resolves.toBe('/home/me/project');
    expect(f.app.OpenFolderDialog).toHaveBeenCalledWith('Pick');
    f.app.OpenFolderDialog.mockResolvedValueOnce('');
    await expect(b.openFolderDialog()).resolves.toBe(''); // cancelled
    f.app.OpenFolderDialog.mockRejectedValueOnce('TOOL_FAILED: folder dialog: no display');
    await expect(b.openFolderDialog()).rejects.toMatchObject({ code: 'TOOL_FAILED', message: 'folder dialog: no display' });
  });

  it('opens the file dialog with its filters and types its failures', async () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    const archives = [{ displayName: 'Plugin archives', pattern: '*.tgz;*.tar.gz;*.tar' }];
    await expect(b.openFileDialog('Pick', archives)).resolves.toBe('/home/me/board.tgz');
    expect(f.app.OpenFileDialog).toHaveBeenCalledWith('Pick', archives);
    f.app.OpenFileDialog.mockResolvedValueOnce('');
    await expect(b.openFileDialog()).resolves.toBe(''); // cancelled
    expect(f.app.OpenFileDialog).toHaveBeenLastCalledWith('', []);
    f.app.OpenFileDialog.mockRejectedValueOnce('TOOL_FAILED: file dialog: no display');
    await expect(b.openFileDialog()).rejects.toMatchObject({ code: 'TOOL_FAILED', message: 'file dialog: no display' });
  });

  it('passes live-view inputs, viewports and stops to the bound methods, with typed errors', async () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    const ev = { kind: 'mouse', type: 'mousePressed', x: 10, y: 20, button: 'left', buttons: 1, clickCount: 1 } as const;
    await b.browserInput('btab_1', ev);
    expect(f.app.BrowserInput).toHaveBeenCalledWith('btab_1', ev);
    await b.browserViewport('btab_1', 800, 600, 2);
    expect(f.app.BrowserViewport).toHaveBeenCalledWith('btab_1', 800, 600, 2);
    await b.browserStop('btab_1');
    expect(f.app.BrowserStop).toHaveBeenCalledWith('btab_1');
    f.app.BrowserInput.mockRejectedValueOnce('VALIDATION_ERROR: there is no browser tab "btab_x" (was it closed?)');
    await expect(b.browserInput('btab_x', ev)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('passes terminal input and sizes to the bound methods, with typed errors', async () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    await b.terminalWrite('term_1', 'ls\r');
    expect(f.app.TerminalWrite).toHaveBeenCalledWith('term_1', 'ls\r');
    await b.terminalResize('term_1', 120, 40);
    expect(f.app.TerminalResize).toHaveBeenCalledWith('term_1', 120, 40);
    f.app.TerminalWrite.mockRejectedValueOnce('VALIDATION_ERROR: there is no terminal "term_x" (was it closed?)');
    await expect(b.terminalWrite('term_x', 'x')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('returns [] for a null slice from Go', async () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    await expect(b.pendingApprovals()).resolves.toEqual([]);
  });

  it('reports BRIDGE_UNAVAILABLE outside the Wails window', async () => {
    const b = createBridge(() => ({}));
    await expect(b.listTools()).rejects.toMatchObject({ code: 'BRIDGE_UNAVAILABLE' });
    await expect(b.call('app_health')).rejects.toMatchObject({ code: 'BRIDGE_UNAVAILABLE' });
    expect(() => b.subscribe('x', () => {})).toThrow(BridgeError);
  });

  it('uses window.go and window.runtime by default', async () => {
    const f = fakeHost();
    vi.stubGlobal('go', f.host.go);
    vi.stubGlobal('runtime', f.host.runtime);
    const { listTools } = await import('./index');
    await expect(listTools()).resolves.toHaveLength(1);
    expect(f.app.ListTools).toHaveBeenCalledOnce();
  });
});

describe('call', () => {
  it('forces the renderer caller and passes args and scope hints', async () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    // The untyped form (an explicit content type): the bridge passes any arguments on.
    const p = b.call<unknown>('app_health', { deep: true }, { clientInfo: { cwd: '/tmp', caller: 'agent' } as never });
    await tick();
    expect(f.app.Call).toHaveBeenCalledWith('app_health', { deep: true }, { cwd: '/tmp', caller: 'renderer' });
    f.emit('tool_result', { callId: 'call_000000000001', result: ok({ status: 'ok' }) });
    await expect(p).resolves.toEqual(ok({ status: 'ok' }));
  });

  it('routes events and results by callId', async () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    const evA: ToolEvent[] = [];
    const evB: ToolEvent[] = [];
    const pa = b.call('a', {}, { onEvent: (e) => evA.push(e) });
    const pb = b.call('b', {}, { onEvent: (e) => evB.push(e) });
    await tick();
    f.emit('tool_event', { callId: 'call_000000000002', event: { kind: 'log', message: 'b1' } });
    f.emit('tool_event', { callId: 'call_000000000001', event: { kind: 'progress', message: 'a1' } });
    f.emit('tool_event', { callId: 'call_999999999999', event: { kind: 'log', message: 'stray' } });
    f.emit('tool_result', { callId: 'call_000000000002', result: ok('B') });
    f.emit('tool_event', { callId: 'call_000000000001', event: { kind: 'progress', message: 'a2' } });
    f.emit('tool_result', { callId: 'call_000000000001', result: ok('A') });
    await expect(pa).resolves.toEqual(ok('A'));
    await expect(pb).resolves.toEqual(ok('B'));
    expect(evA.map((e) => e.message)).toEqual(['a1', 'a2']);
    expect(evB.map((e) => e.message)).toEqual(['b1']);
    // One pair of listeners, however many calls.
    expect(f.runtime.EventsOn).toHaveBeenCalledTimes(2);
  });

  it('keeps events that arrive before Call() returns the callId', async () => {
    const f = fakeHost();
    f.app.Call.mockImplementationOnce(async () => {
      f.emit('tool_event', { callId: 'call_early0000000', event: { kind: 'progress', message: 'first' } });
      f.emit('tool_result', { callId: 'call_early0000000', result: ok(1) });
      return 'call_early0000000';
    });
    const b = createBridge(() => f.host);
    const events: ToolEvent[] = [];
    await expect(b.call('x', {}, { onEvent: (e) => events.push(e) })).resolves.toEqual(ok(1));
    expect(events).toEqual([{ kind: 'progress', message: 'first' }]);
  });

  it('a throwing onEvent handler does not break routing', async () => {
    const f = fakeHost();
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const b = createBridge(() => f.host);
    const p = b.call('x', {}, { onEvent: () => { throw new Error('boom'); } });
    await tick();
    f.emit('tool_event', { callId: 'call_000000000001', event: { kind: 'log', message: 'x' } });
    f.emit('tool_result', { callId: 'call_000000000001', result: ok(2) });
    await expect(p).resolves.toEqual(ok(2));
  });

  it('rejects with a BridgeError when the call cannot start', async () => {
    const f = fakeHost();
    f.app.Call.mockRejectedValueOnce('RUNTIME_SHUTTING_DOWN: the window is closing');
    const b = createBridge(() => f.host);
    await expect(b.call('x')).rejects.toMatchObject({ name: 'BridgeError', code: 'RUNTIME_SHUTTING_DOWN' });
  });

  it('abort → Cancel(callId), then resolves with the CANCELLED result', async () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    const ac = new AbortController();
    const p = b.call('slow', {}, { signal: ac.signal });
    await tick();
    expect(f.app.Cancel).not.toHaveBeenCalled();
    ac.abort();
    expect(f.app.Cancel).toHaveBeenCalledWith('call_000000000001');
    const cancelled: ToolResult = { ok: false, error: { code: 'CANCELLED', message: 'Tool "slow" was cancelled' } };
    f.emit('tool_result', { callId: 'call_000000000001', result: cancelled });
    await expect(p).resolves.toEqual(cancelled);
  });

  it('abort while Call() is in flight cancels once the callId is known', async () => {
    const f = fakeHost();
    let release!: (id: string) => void;
    f.app.Call.mockImplementationOnce(() => new Promise<string>((r) => (release = r)));
    const b = createBridge(() => f.host);
    const ac = new AbortController();
    const p = b.call('slow', {}, { signal: ac.signal });
    await tick();
    ac.abort();
    expect(f.app.Cancel).not.toHaveBeenCalled();
    release('call_inflight00000');
    await tick();
    expect(f.app.Cancel).toHaveBeenCalledWith('call_inflight00000');
    f.emit('tool_result', { callId: 'call_inflight00000', result: { ok: false, error: { code: 'CANCELLED', message: 'c' } } });
    await expect(p).resolves.toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
  });

  it('an already aborted signal never reaches Go', async () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    const ac = new AbortController();
    ac.abort();
    await expect(b.call('x', {}, { signal: ac.signal })).resolves.toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    expect(f.app.Call).not.toHaveBeenCalled();
  });

  it('does not cancel after the result arrived', async () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    const ac = new AbortController();
    const p = b.call('x', {}, { signal: ac.signal });
    await tick();
    f.emit('tool_result', { callId: 'call_000000000001', result: ok(3) });
    await p;
    ac.abort();
    expect(f.app.Cancel).not.toHaveBeenCalled();
  });
});

describe('subscribe', () => {
  it('delivers payloads until unsubscribed', () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    const got: unknown[] = [];
    const off = b.subscribe<{ pending: number }>('approvals_changed', (p) => got.push(p.pending));
    f.emit('approvals_changed', { pending: 1 });
    off();
    f.emit('approvals_changed', { pending: 0 });
    expect(got).toEqual([1]);
  });
});

describe('typed call (generated/tools.ts)', () => {
  it('checks a known tool\'s arguments and types its content by the tool\'s output', async () => {
    const f = fakeHost();
    const b = createBridge(() => f.host);
    const p = b.call('app_ping', { message: 'hi' });
    await tick();
    expect(f.app.Call).toHaveBeenCalledWith('app_ping', { message: 'hi' }, { caller: 'renderer' });
    f.emit('tool_result', { callId: 'call_000000000001', result: ok({ pong: true, pid: 7 }) });
    const r = await p;
    expectTypeOf(r.content).toEqualTypeOf<PingResult | undefined>();
    expect(r.content?.pong).toBe(true);

    // Type checks only (svelte-check runs them; the calls below never run).
    const typeChecks = () => {
      // @ts-expect-error app_ping has no argument "bogus"
      void b.call('app_ping', { bogus: 1 });
      // @ts-expect-error message is a string
      void b.call('app_ping', { message: 1 });
      // @ts-expect-error switch_space needs its arguments
      void b.call('switch_space');
      expectTypeOf(b.call('app_get_state')).resolves.toEqualTypeOf<ToolResult<ToolOutput<'app_get_state'>>>();
      // A tool that does not describe its output: unknown content, or the caller's type.
      expectTypeOf(b.call('git_status', { cwd: '/repo' })).resolves.toEqualTypeOf<ToolResult<unknown>>();
      expectTypeOf(b.call<{ isRepo: boolean }>('git_status', { cwd: '/repo' })).resolves.toEqualTypeOf<ToolResult<{ isRepo: boolean }>>();
      // A name the generated types do not know takes any arguments.
      const name: string = 'plugin_tool';
      void b.call(name, { anything: true });
    };
    expect(typeChecks).toBeTypeOf('function');
  });
});
