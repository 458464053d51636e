// Keys of a terminal on their way to its PTY: one bound call at a time, in
// order; what is typed while a call is in flight goes in the next one.

/** Sends a terminal's input in order, coalescing while a write is in flight. */
export class InputQueue {
  private pending = '';
  private busy = false;

  /**
   * write sends data to the PTY; onError hears of a failed write (the data
   * of a failed write is dropped, as a terminal that went away would).
   */
  constructor(
    private write: (data: string) => Promise<void>,
    private onError: (err: unknown) => void = () => {},
  ) {}

  send(data: string): void {
    if (!data) return;
    this.pending += data;
    void this.pump();
  }

  /** Whether nothing is waiting or in flight. */
  get idle(): boolean {
    return !this.busy && this.pending === '';
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.pending) {
        const data = this.pending;
        this.pending = '';
        try {
          await this.write(data);
        } catch (err) {
          this.onError(err);
        }
      }
    } finally {
      this.busy = false;
    }
  }
}
