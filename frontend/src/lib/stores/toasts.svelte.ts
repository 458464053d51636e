import { BridgeError, call, type ToolResult } from '../bridge';

/** A button on a toast ("Undo"); running it dismisses the toast. */
export interface ToastAction {
  label: string;
  run: () => void | Promise<void>;
}

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  text: string;
  action?: ToastAction;
}

/** Options of toasts.show. */
export interface ShowOptions {
  kind?: Toast['kind'];
  /** How long it stays (0: until dismissed); default 7 s, 12 s with an action. */
  ttlMs?: number;
  action?: ToastAction;
}

/** Short messages at the bottom of the window; errors of actions land here. */
class ToastStore {
  list = $state<Toast[]>([]);
  private seq = 0;

  push(text: string, kind: Toast['kind'] = 'error', ttlMs = 7000): number {
    const id = ++this.seq;
    this.list = [...this.list.slice(-3), { id, kind, text }];
    if (ttlMs > 0) setTimeout(() => this.dismiss(id), ttlMs);
    return id;
  }

  /** Shows a message (info by default), optionally with an action button. */
  show(text: string, opts: ShowOptions = {}): number {
    const id = ++this.seq;
    this.list = [...this.list.slice(-3), { id, kind: opts.kind ?? 'info', text, action: opts.action }];
    const ttl = opts.ttlMs ?? (opts.action ? 12_000 : 7000);
    if (ttl > 0) setTimeout(() => this.dismiss(id), ttl);
    return id;
  }

  /** Runs a toast's action once (the toast goes first, so a second click does nothing). */
  async runAction(id: number): Promise<void> {
    const t = this.list.find((x) => x.id === id);
    if (!t?.action) return;
    this.dismiss(id);
    await t.action.run();
  }

  dismiss(id: number): void {
    this.list = this.list.filter((t) => t.id !== id);
  }

  clear(): void {
    this.list = [];
  }
}

/** "CODE: message" for a BridgeError, the text of anything else. */
export function errorText(err: unknown): string {
  if (err instanceof BridgeError) return `${err.code}: ${err.message}`;
  if (err instanceof Error) return err.message;
  return String(err);
}

export const toasts = new ToastStore();

/** "CODE: message" of a failed tool result. */
export function resultError(r: ToolResult<unknown>, tool: string): string {
  return `${r.error?.code ?? 'TOOL_FAILED'}: ${r.error?.message ?? `${tool} failed`}`;
}

/**
 * Runs a tool for a user action: its content on success; on failure a toast
 * (none for a cancel) and undefined.
 */
export async function callForAction<T>(tool: string, args: Record<string, unknown>): Promise<{ content: T } | undefined> {
  let r: ToolResult<T>;
  try {
    r = await call<T>(tool, args);
  } catch (err) {
    toasts.push(errorText(err));
    return undefined;
  }
  if (!r.ok) {
    if (r.error?.code !== 'CANCELLED') toasts.push(resultError(r, tool));
    return undefined;
  }
  return { content: r.content as T };
}
