// The only code in the frontend that touches Wails. It uses the objects the
// Wails webview injects at run time instead of the generated wailsjs/
// modules, so building the frontend does not need the wails CLI:
//
//   window.go.app.App.<Method>   bound methods of app.App (Go package "app")
//   window.runtime.EventsOn      Wails runtime events (returns an unsubscribe)
//
// The method signatures mirror app/binding.go.

import { BridgeError } from './errors';
import type {
  ApprovalRequest,
  BrowserInputEvent,
  ClientInfo,
  ToolDescriptor,
} from './types';

/** The bound methods of app.App. */
export interface BoundApp {
  ListTools(): Promise<ToolDescriptor[] | null>;
  Call(tool: string, args: Record<string, unknown>, clientInfo: ClientInfo): Promise<string>;
  Cancel(callId: string): Promise<void>;
  PendingApprovals(): Promise<ApprovalRequest[] | null>;
  DecideApproval(id: string, decision: string): Promise<void>;
  OpenFolderDialog(title: string): Promise<string>;
  OpenFileDialog(title: string, filters: FileFilter[]): Promise<string>;
  BrowserInput(tabId: string, ev: BrowserInputEvent): Promise<void>;
  BrowserViewport(tabId: string, width: number, height: number, scale: number): Promise<void>;
  BrowserStop(tabId: string): Promise<void>;
  TerminalWrite(id: string, data: string): Promise<void>;
  TerminalResize(id: string, cols: number, rows: number): Promise<void>;
}

/** One entry of the file dialog's type list (app.FileFilter): patterns separated by ";". */
export interface FileFilter {
  displayName: string;
  pattern: string;
}

/** The part of the Wails runtime the bridge uses. */
export interface WailsRuntime {
  EventsOn(name: string, callback: (...data: unknown[]) => void): () => void;
}

/** What the bridge reads from the window (or a test double). */
export interface WailsHost {
  go?: { app?: { App?: BoundApp } };
  runtime?: WailsRuntime;
}

/** Resolves the host lazily, so a test can install its double first. */
export type HostSource = () => WailsHost;

export const windowHost: HostSource = () => globalThis as unknown as WailsHost;

export function boundApp(host: HostSource): BoundApp {
  const app = host().go?.app?.App;
  if (!app) {
    throw new BridgeError('BRIDGE_UNAVAILABLE', 'window.go.app.App is missing: not running inside the meith window');
  }
  return app;
}

export function wailsRuntime(host: HostSource): WailsRuntime {
  const rt = host().runtime;
  if (!rt || typeof rt.EventsOn !== 'function') {
    throw new BridgeError('BRIDGE_UNAVAILABLE', 'window.runtime is missing: not running inside the meith window');
  }
  return rt;
}
