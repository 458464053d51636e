// lib/bridge: the frontend's single door to the Go side. Everything else in
// the UI imports from here, never from Wails. It
//   - wraps the bound methods of app.App in typed functions,
//   - turns string rejections into BridgeError {code, message},
//   - runs tool calls as callID + events (tool_event / tool_result), with
//     cancellation through an AbortSignal,
//   - exposes subscribe(topic, fn) over the Wails runtime events.
// Bulk data (browser frames, process output) is not here: views pull it
// from the asset server with fetch.

import { BridgeError, toBridgeError } from './errors';
import { boundApp, windowHost, wailsRuntime, type FileFilter, type HostSource } from './wails';
import {
  Topics,
  type ApprovalDecision,
  type ApprovalRequest,
  type BrowserInputEvent,
  type ClientInfo,
  type ToolDescriptor,
  type ToolEvent,
  type ToolEventPayload,
  type ToolInput,
  type ToolName,
  type ToolOutput,
  type ToolResult,
  type ToolResultPayload,
} from './types';

export * from './types';
export { BridgeError, toBridgeError, type BridgeErrorCode } from './errors';
export type { FileFilter } from './wails';

export interface CallOptions {
  /** Receives the call's streamed events, in order. */
  onEvent?: (event: ToolEvent) => void;
  /** Aborting cancels the call; it then resolves with a CANCELLED result. */
  signal?: AbortSignal;
  /** Scope hints (cwd, spaceId, tabId). The caller is always "renderer". */
  clientInfo?: Omit<ClientInfo, 'caller'>;
}

/**
 * The arguments after a tool's name: its input, which may be left out when
 * the tool has no required argument, then the options.
 */
export type CallArgs<N extends ToolName> = {} extends ToolInput<N>
  ? [args?: ToolInput<N>, options?: CallOptions]
  : [args: ToolInput<N>, options?: CallOptions];

/** A tool name that the generated types do not know (computed at run time, or a test's). */
type UnknownToolName<S extends string> = S & (S extends ToolName ? never : unknown);

export interface Bridge {
  /**
   * Calls a tool. Resolves with the ToolResult (ok or not) once the Go side
   * reports it; rejects with a BridgeError only when the call could not be
   * started.
   *
   * With a tool name the generated types know (ToolName), the arguments are
   * checked against the tool's input and the content has the tool's output
   * type (unknown when the tool does not describe it). A name known only
   * at run time, or an explicit content type (call<T>(…), for a tool whose
   * output is unknown), takes the untyped form.
   */
  call<N extends ToolName>(tool: N, ...rest: CallArgs<N>): Promise<ToolResult<ToolOutput<N>>>;
  call<T = unknown, S extends string = string>(
    tool: UnknownToolName<S>,
    args?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<ToolResult<T>>;
  listTools(): Promise<ToolDescriptor[]>;
  pendingApprovals(): Promise<ApprovalRequest[]>;
  decideApproval(id: string, decision: ApprovalDecision): Promise<void>;
  /** Shows the native folder picker; resolves with the folder, or '' when the user cancels. */
  openFolderDialog(title?: string): Promise<string>;
  /** Shows the native file picker offering the filters' files; resolves with the file, or '' when the user cancels. */
  openFileDialog(title?: string, filters?: FileFilter[]): Promise<string>;
  /** Sends one input of a browser tab's live view to its page. */
  browserInput(tabId: string, ev: BrowserInputEvent): Promise<void>;
  /** Lays a browser tab's page out for a view of width×height CSS pixels at a device scale. */
  browserViewport(tabId: string, width: number, height: number, scale: number): Promise<void>;
  /** Stops the loading of a browser tab's page. */
  browserStop(tabId: string): Promise<void>;
  /** Sends the keys (or pasted text) of a terminal tab to its PTY. */
  terminalWrite(id: string, data: string): Promise<void>;
  /** Sets a terminal's PTY size (character cells) to its view's. */
  terminalResize(id: string, cols: number, rows: number): Promise<void>;
  /** Listens to a Go-side event; returns the unsubscribe function. */
  subscribe<T = unknown>(topic: string, fn: (payload: T) => void): () => void;
}

interface Waiter {
  onEvent?: (event: ToolEvent) => void;
  resolve: (result: ToolResult) => void;
}

interface Early {
  events: ToolEvent[];
  result?: ToolResult;
}

/**
 * How many calls' events are kept when they arrive before Call() has returned
 * the callID (Wails does not order a method's return against events the same
 * call emits). Older entries are dropped first.
 */
const MAX_EARLY = 256;

/** Routes tool_event / tool_result by callId to the waiting call. */
class CallRouter {
  private waiters = new Map<string, Waiter>();
  private early = new Map<string, Early>();
  private started = false;

  constructor(private host: HostSource) {}

  ensureStarted(): void {
    if (this.started) return;
    const rt = wailsRuntime(this.host);
    rt.EventsOn(Topics.toolEvent, (p) => this.onEvent(p as ToolEventPayload));
    rt.EventsOn(Topics.toolResult, (p) => this.onResult(p as ToolResultPayload));
    this.started = true;
  }

  register(callId: string, waiter: Waiter): void {
    const early = this.early.get(callId);
    this.early.delete(callId);
    if (early) {
      for (const ev of early.events) deliver(waiter, ev);
      if (early.result) {
        waiter.resolve(early.result);
        return;
      }
    }
    this.waiters.set(callId, waiter);
  }

  private onEvent(p: ToolEventPayload): void {
    if (!p || typeof p.callId !== 'string') return;
    const w = this.waiters.get(p.callId);
    if (w) deliver(w, p.event);
    else this.buffer(p.callId).events.push(p.event);
  }

  private onResult(p: ToolResultPayload): void {
    if (!p || typeof p.callId !== 'string') return;
    const w = this.waiters.get(p.callId);
    if (w) {
      this.waiters.delete(p.callId);
      w.resolve(p.result);
    } else {
      this.buffer(p.callId).result = p.result;
    }
  }

  private buffer(callId: string): Early {
    let e = this.early.get(callId);
    if (!e) {
      e = { events: [] };
      this.early.set(callId, e);
      if (this.early.size > MAX_EARLY) {
        const oldest = this.early.keys().next().value;
        if (oldest !== undefined) this.early.delete(oldest);
      }
    }
    return e;
  }
}

function deliver(w: Waiter, ev: ToolEvent): void {
  if (!w.onEvent) return;
  try {
    w.onEvent(ev);
  } catch (err) {
    console.error('bridge: onEvent handler threw', err);
  }
}

function cancelledResult(tool: string): ToolResult<never> {
  return { ok: false, error: { code: 'CANCELLED', message: `Tool "${tool}" was cancelled` } };
}

async function invoke<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toBridgeError(err);
  }
}

/** Builds a bridge on a host (the window, or a test double). */
export function createBridge(host: HostSource = windowHost): Bridge {
  const router = new CallRouter(host);

  return {
    async call<T = unknown>(tool: string, args: object = {}, options: CallOptions = {}) {
      const { onEvent, signal, clientInfo } = options;
      if (signal?.aborted) return cancelledResult(tool);
      const app = await invoke(async () => boundApp(host));
      await invoke(async () => router.ensureStarted());
      const callId = await invoke(() => app.Call(tool, args as Record<string, unknown>, { ...clientInfo, caller: 'renderer' }));
      if (typeof callId !== 'string' || callId === '') {
        throw new BridgeError('BRIDGE_ERROR', `Call(${tool}) returned no call id`);
      }
      return new Promise<ToolResult<T>>((resolve) => {
        const onAbort = () => {
          app.Cancel(callId).catch((err: unknown) => console.error('bridge: Cancel failed', toBridgeError(err)));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        router.register(callId, {
          onEvent,
          resolve: (result) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(result as ToolResult<T>);
          },
        });
        // Aborted while Call() was in flight: the listener above missed it.
        if (signal?.aborted) onAbort();
      });
    },

    async listTools() {
      const app = await invoke(async () => boundApp(host));
      return (await invoke(() => app.ListTools())) ?? [];
    },

    async pendingApprovals() {
      const app = await invoke(async () => boundApp(host));
      return (await invoke(() => app.PendingApprovals())) ?? [];
    },

    async decideApproval(id: string, decision: ApprovalDecision) {
      const app = await invoke(async () => boundApp(host));
      await invoke(() => app.DecideApproval(id, decision));
    },

    async openFolderDialog(title = '') {
      const app = await invoke(async () => boundApp(host));
      return (await invoke(() => app.OpenFolderDialog(title))) ?? '';
    },

    async openFileDialog(title = '', filters: FileFilter[] = []) {
      const app = await invoke(async () => boundApp(host));
      return (await invoke(() => app.OpenFileDialog(title, filters))) ?? '';
    },

    async browserInput(tabId: string, ev: BrowserInputEvent) {
      const app = await invoke(async () => boundApp(host));
      await invoke(() => app.BrowserInput(tabId, ev));
    },

    async browserViewport(tabId: string, width: number, height: number, scale: number) {
      const app = await invoke(async () => boundApp(host));
      await invoke(() => app.BrowserViewport(tabId, width, height, scale));
    },

    async browserStop(tabId: string) {
      const app = await invoke(async () => boundApp(host));
      await invoke(() => app.BrowserStop(tabId));
    },

    async terminalWrite(id: string, data: string) {
      const app = await invoke(async () => boundApp(host));
      await invoke(() => app.TerminalWrite(id, data));
    },

    async terminalResize(id: string, cols: number, rows: number) {
      const app = await invoke(async () => boundApp(host));
      await invoke(() => app.TerminalResize(id, cols, rows));
    },

    subscribe<T = unknown>(topic: string, fn: (payload: T) => void) {
      const off = wailsRuntime(host).EventsOn(topic, (payload) => fn(payload as T));
      return typeof off === 'function' ? off : () => {};
    },
  };
}

/** The bridge of the real window. */
export const bridge: Bridge = createBridge();

export const call = bridge.call.bind(bridge) as Bridge['call'];
export const listTools = bridge.listTools.bind(bridge);
export const pendingApprovals = bridge.pendingApprovals.bind(bridge);
export const decideApproval = bridge.decideApproval.bind(bridge);
export const openFolderDialog = bridge.openFolderDialog.bind(bridge);
export const openFileDialog = bridge.openFileDialog.bind(bridge);
export const browserInput = bridge.browserInput.bind(bridge);
export const browserViewport = bridge.browserViewport.bind(bridge);
export const browserStop = bridge.browserStop.bind(bridge);
export const terminalWrite = bridge.terminalWrite.bind(bridge);
export const terminalResize = bridge.terminalResize.bind(bridge);
export const subscribe = bridge.subscribe.bind(bridge) as Bridge['subscribe'];
