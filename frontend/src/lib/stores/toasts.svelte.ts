import { call, type ToolResult } from '../bridge';
import { humanizeError, humanizeResult, type ToolErrorLike } from '../errors';

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
    // One error is shown once: the same text already on screen is not repeated.
    const same = this.list.find((t) => t.text === text && t.kind === kind);
    if (same) return same.id;
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

/** An error in words (errors.ts): never a "CODE:" prefix. */
export function errorText(err: unknown): string {
  return humanizeError(err);
}

export const toasts = new ToastStore();

/** A failed tool result in words (errors.ts); action says what failed when the result does not ("save the file"). */
export function resultError(r: { error?: ToolErrorLike }, action = ''): string {
  return humanizeResult(r, /_/.test(action) ? '' : action);
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
