/** What an in-app confirmation asks. */
export interface ConfirmOptions {
  title: string;
  message: string;
  /** The confirm button says what it does ("Discard", "Delete file"). */
  confirmLabel: string;
  /** The confirm button destroys something (drawn in the danger colour). */
  destructive?: boolean;
  /** The cancel button's text (default "Cancel"). */
  cancelLabel?: string;
}

/** A question being asked (or waiting its turn). */
export interface PendingDialog extends ConfirmOptions {
  id: number;
  resolve: (ok: boolean) => void;
}

/**
 * The window's own confirmation dialogs, replacing the native confirm():
 * questions queue and ConfirmDialog (mounted once in App) shows the first.
 */
class DialogStore {
  queue = $state<PendingDialog[]>([]);
  current = $derived(this.queue[0] ?? null);
  private seq = 0;

  /** Asks; resolves true when the confirm button is chosen. */
  ask(opts: ConfirmOptions): Promise<boolean> {
    return new Promise((resolve) => {
      this.queue = [...this.queue, { ...opts, id: ++this.seq, resolve }];
    });
  }

  /** Answers the shown question. */
  answer(id: number, ok: boolean): void {
    const d = this.queue.find((x) => x.id === id);
    if (!d) return;
    this.queue = this.queue.filter((x) => x.id !== id);
    d.resolve(ok);
  }

  /** Cancels every question (the window goes away, tests). */
  cancelAll(): void {
    const all = this.queue;
    this.queue = [];
    for (const d of all) d.resolve(false);
  }
}

export const dialogs = new DialogStore();

/** Asks in the window: resolves true on the confirm button, false on Cancel/Esc. */
export function confirmDialog(opts: ConfirmOptions): Promise<boolean> {
  return dialogs.ask(opts);
}
