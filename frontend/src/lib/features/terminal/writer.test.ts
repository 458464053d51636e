import { describe, expect, it } from 'vitest';
import { ChunkQueue, FrameWriter, MAX_SLICE, MIN_SLICE, nextSlice, START_SLICE } from './writer';

describe('ChunkQueue', () => {
  it('takes in order, joining small chunks and splitting big ones', () => {
    const q = new ChunkQueue();
    q.push('ab');
    q.push('');
    q.push('cdef');
    q.push('g');
    expect(q.size).toBe(7);
    expect(q.take(3)).toBe('abc');
    expect(q.take(2)).toBe('de');
    expect(q.take(10)).toBe('fg');
    expect(q.size).toBe(0);
    expect(q.take(10)).toBe('');
  });

  it('never splits a surrogate pair', () => {
    const q = new ChunkQueue();
    q.push('a😀b');
    expect(q.take(2)).toBe('a');
    expect(q.take(2)).toBe('😀');
    expect(q.take(2)).toBe('b');
  });
});

describe('nextSlice', () => {
  it('grows when parsing is quick, shrinks when slow, within bounds', () => {
    expect(nextSlice(START_SLICE, 2)).toBe(START_SLICE * 2);
    expect(nextSlice(MAX_SLICE, 1)).toBe(MAX_SLICE);
    expect(nextSlice(START_SLICE, 40)).toBe(START_SLICE / 2);
    expect(nextSlice(MIN_SLICE, 400)).toBe(MIN_SLICE);
    expect(nextSlice(START_SLICE, 12)).toBe(START_SLICE);
  });
});

/** A fake animation-frame clock and a terminal that parses when told. */
function harness(opts: { parseMs?: number; highWater?: number } = {}) {
  const frames: (() => void)[] = [];
  const writes: string[] = [];
  const pending: (() => void)[] = [];
  let clock = 0;
  const w = new FrameWriter({
    write: (data, done) => {
      writes.push(data);
      pending.push(() => {
        clock += opts.parseMs ?? 10;
        done();
      });
    },
    raf: (cb) => frames.push(cb),
    cancelRaf: () => {},
    now: () => clock,
    highWater: opts.highWater,
  });
  const frame = () => frames.splice(0).forEach((cb) => cb());
  const parsed = () => pending.splice(0).forEach((fn) => fn());
  return { w, writes, frame, parsed, frames };
}

describe('FrameWriter', () => {
  it('coalesces everything pushed before a frame into one write', () => {
    const h = harness();
    for (let i = 0; i < 100; i++) h.w.push(`chunk ${i}\r\n`);
    expect(h.writes).toEqual([]);
    expect(h.frames.length).toBe(1);
    h.frame();
    expect(h.writes.length).toBe(1);
    expect(h.writes[0]).toContain('chunk 0\r\nchunk 1\r\n');
    expect(h.writes[0].endsWith('chunk 99\r\n')).toBe(true);
  });

  it('writes the next slice only after the terminal parsed the last one', () => {
    const h = harness();
    h.w.push('x'.repeat(START_SLICE * 3));
    h.frame();
    expect(h.writes.length).toBe(1);
    h.frame(); // no frame was even asked for while xterm parses
    expect(h.writes.length).toBe(1);
    h.parsed();
    h.frame();
    expect(h.writes.length).toBe(2);
  });

  it('keeps a 50 MB flood to bounded slices per frame, then drains it', () => {
    const h = harness({ parseMs: 12 });
    const chunk = 'y\n'.repeat(512 * 1024); // 1 MiB chunks, as the engine coalesces
    for (let i = 0; i < 50; i++) h.w.push(chunk);
    let frames = 0;
    while (h.w.pending > 0 && frames < 10_000) {
      h.frame();
      h.parsed();
      frames++;
    }
    expect(h.w.pending).toBe(0);
    expect(Math.max(...h.writes.map((d) => d.length))).toBeLessThanOrEqual(MAX_SLICE);
    expect(h.writes.join('').length).toBe(50 * chunk.length);
    expect(frames).toBe(h.writes.length); // one write per frame, never more
  });

  it('adapts the slice to how fast the terminal parses', () => {
    const slow = harness({ parseMs: 50 });
    slow.w.push('z'.repeat(MAX_SLICE));
    slow.frame();
    slow.parsed();
    expect(slow.w.slice).toBe(START_SLICE / 2);
    const fast = harness({ parseMs: 1 });
    fast.w.push('z'.repeat(MAX_SLICE));
    fast.frame();
    fast.parsed();
    expect(fast.w.slice).toBe(START_SLICE * 2);
  });

  it('holds the puller back above the high-water mark (backpressure)', async () => {
    const h = harness({ highWater: 1000 });
    await h.w.ready(); // empty: at once
    h.w.push('a'.repeat(5000));
    let released = false;
    const p = h.w.ready().then(() => (released = true));
    await Promise.resolve();
    expect(released).toBe(false);
    while (h.w.pending >= 1000) {
      h.frame();
      h.parsed();
    }
    await p;
    expect(released).toBe(true);
  });

  it('drops what is queued on clear and stops on dispose', async () => {
    const h = harness({ highWater: 10 });
    h.w.push('a'.repeat(100));
    const waiting = h.w.ready();
    h.w.clear();
    await waiting;
    h.frame();
    expect(h.writes).toEqual([]);
    h.w.dispose();
    h.w.push('more');
    h.frame();
    expect(h.writes).toEqual([]);
  });
});
