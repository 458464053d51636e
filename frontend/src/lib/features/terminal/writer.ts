// Output of a terminal on its way to xterm.js: chunks are queued, coalesced
// and written at most once per animation frame, a bounded slice at a time,
// and the next slice waits until xterm parsed the last one. A flood (`yes`,
// a big `cat`) so costs a bounded amount of work per frame and the window
// stays responsive; the puller waits (backpressure) while much is queued.

/** The first slice size, and its bounds. */
export const START_SLICE = 64 * 1024;
export const MIN_SLICE = 16 * 1024;
export const MAX_SLICE = 1024 * 1024;
/** Above this many queued characters the puller waits. */
export const HIGH_WATER = 2 * 1024 * 1024;

/** Text chunks in order, taken in slices of at most n characters. */
export class ChunkQueue {
  private chunks: string[] = [];
  private head = 0; // characters of chunks[0] already taken
  size = 0;

  push(text: string): void {
    if (!text) return;
    this.chunks.push(text);
    this.size += text.length;
  }

  /** Takes up to max characters (never splitting a surrogate pair), in order. */
  take(max: number): string {
    const parts: string[] = [];
    let want = Math.max(1, max);
    while (want > 0 && this.chunks.length > 0) {
      const c = this.chunks[0];
      const rest = c.length - this.head;
      if (rest <= want) {
        parts.push(this.head ? c.slice(this.head) : c);
        want -= rest;
        this.chunks.shift();
        this.head = 0;
        continue;
      }
      let cut = this.head + want;
      const code = c.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--; // keep a pair together
      if (cut <= this.head) cut = this.head + 2; // a lone pair bigger than want
      parts.push(c.slice(this.head, cut));
      this.head = cut;
      want = 0;
    }
    const out = parts.join('');
    this.size -= out.length;
    return out;
  }

  clear(): void {
    this.chunks = [];
    this.head = 0;
    this.size = 0;
  }
}

/**
 * The next slice size: grows while xterm parses a slice within a frame's
 * budget, shrinks when it takes longer.
 */
export function nextSlice(slice: number, parseMs: number): number {
  if (parseMs < 6) return Math.min(MAX_SLICE, slice * 2);
  if (parseMs > 20) return Math.max(MIN_SLICE, Math.floor(slice / 2));
  return slice;
}

export interface FrameWriterOptions {
  /** Writes data to the terminal and calls done once it is parsed (xterm's write callback). */
  write: (data: string, done: () => void) => void;
  raf?: (cb: () => void) => number;
  cancelRaf?: (id: number) => void;
  now?: () => number;
  highWater?: number;
}

/** Writes queued output to a terminal once per animation frame. */
export class FrameWriter {
  private queue = new ChunkQueue();
  private frame = 0;
  private writing = false;
  private disposed = false;
  private waiters: (() => void)[] = [];
  /** The current slice size (adapts to how fast the terminal parses). */
  slice = START_SLICE;
  private readonly raf: (cb: () => void) => number;
  private readonly cancelRaf: (id: number) => void;
  private readonly now: () => number;
  private readonly highWater: number;

  constructor(private opts: FrameWriterOptions) {
    this.raf = opts.raf ?? ((cb) => requestAnimationFrame(cb));
    this.cancelRaf = opts.cancelRaf ?? ((id) => cancelAnimationFrame(id));
    this.now = opts.now ?? (() => performance.now());
    this.highWater = opts.highWater ?? HIGH_WATER;
  }

  /** Characters waiting to be written. */
  get pending(): number {
    return this.queue.size;
  }

  push(text: string): void {
    if (this.disposed || !text) return;
    this.queue.push(text);
    this.schedule();
  }

  /** Resolves when the queue is below the high-water mark (or the writer is disposed). */
  ready(): Promise<void> {
    if (this.disposed || this.queue.size < this.highWater) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Drops what is queued (a reset). */
  clear(): void {
    this.queue.clear();
    this.release();
  }

  dispose(): void {
    this.disposed = true;
    if (this.frame) this.cancelRaf(this.frame);
    this.frame = 0;
    this.queue.clear();
    this.release();
  }

  private schedule(): void {
    if (this.frame || this.writing || this.disposed || this.queue.size === 0) return;
    this.frame = this.raf(() => this.flush());
  }

  private flush(): void {
    this.frame = 0;
    if (this.disposed || this.writing) return;
    const data = this.queue.take(this.slice);
    this.release();
    if (!data) return;
    this.writing = true;
    const t0 = this.now();
    this.opts.write(data, () => {
      this.writing = false;
      if (this.disposed) return;
      if (data.length >= this.slice / 2) this.slice = nextSlice(this.slice, this.now() - t0);
      this.schedule();
    });
  }

  private release(): void {
    if (this.queue.size >= this.highWater && !this.disposed) return;
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }
}
