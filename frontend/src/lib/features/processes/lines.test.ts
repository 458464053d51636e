import { describe, expect, it } from 'vitest';
import { appendLines, atBottom, cleanLine, filterLines, highlight, MAX_LINES, visibleRange, type Line } from './lines';

const line = (seq: number, stream: Line['stream'], text: string): Line => ({ seq, stream, text, ts: 0 });

describe('cleanLine', () => {
  it.each([
    ['\x1b[32m✓\x1b[39m ready in \x1b[1m312\x1b[22m ms', '✓ ready in 312 ms'],
    ['  \x1b[36m➜\x1b[0m  Local:   \x1b[36mhttp://localhost:\x1b[1m5173\x1b[22m/\x1b[39m', '  ➜  Local:   http://localhost:5173/'],
    ['\x1b]0;title\x07plain', 'plain'],
    ['\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\', 'link'],
    ['progress 10%\rprogress 50%\rprogress 100%', 'progress 100%'],
    ['done\r\x1b[K', 'done'],
    ['tab\tkept, bell\x07 dropped', 'tab\tkept, bell dropped'],
    ['\x1b(Bcharset', 'charset'],
  ])('%j reads %j', (raw, want) => {
    expect(cleanLine(raw)).toBe(want);
  });
});

describe('appendLines', () => {
  it('cleans entries and keeps the newest MAX_LINES', () => {
    const lines: Line[] = [];
    appendLines(lines, [{ seq: 1, stream: 'stderr', text: '\x1b[31merr\x1b[0m', ts: 5 }]);
    expect(lines).toEqual([{ seq: 1, stream: 'stderr', text: 'err', ts: 5 }]);
    const many = Array.from({ length: MAX_LINES + 10 }, (_, i) => ({ seq: i + 2, stream: 'stdout' as const, text: `l${i}`, ts: 0 }));
    appendLines(lines, many);
    expect(lines.length).toBe(MAX_LINES);
    expect(lines[0].seq).toBe(12);
    expect(lines[lines.length - 1].seq).toBe(MAX_LINES + 11);
  });
});

describe('filters and search', () => {
  const lines = [
    line(1, 'stdout', 'Server ready on :3000'),
    line(2, 'stderr', 'Warning: deprecated API'),
    line(3, 'system', 'exited with code 0'),
    line(4, 'pty', 'READY again'),
  ];

  it('filters by stream (stdout covers pty chunks)', () => {
    expect(filterLines(lines, 'all', '').map((l) => l.seq)).toEqual([1, 2, 3, 4]);
    expect(filterLines(lines, 'stdout', '').map((l) => l.seq)).toEqual([1, 4]);
    expect(filterLines(lines, 'stderr', '').map((l) => l.seq)).toEqual([2]);
    expect(filterLines(lines, 'system', '').map((l) => l.seq)).toEqual([3]);
  });

  it('filters by search, case-insensitively, combined with the stream', () => {
    expect(filterLines(lines, 'all', 'ready').map((l) => l.seq)).toEqual([1, 4]);
    expect(filterLines(lines, 'stderr', 'ready')).toEqual([]);
    expect(filterLines(lines, 'all', '  ').length).toBe(4);
  });

  it('highlights every match', () => {
    expect(highlight('Ready, ready!', 'ready')).toEqual([
      { text: 'Ready', hit: true },
      { text: ', ', hit: false },
      { text: 'ready', hit: true },
      { text: '!', hit: false },
    ]);
    expect(highlight('nothing', 'x')).toEqual([{ text: 'nothing', hit: false }]);
    expect(highlight('abc', '')).toEqual([{ text: 'abc', hit: false }]);
    expect(highlight('', 'a')).toEqual([{ text: '', hit: false }]);
  });
});

describe('virtual list', () => {
  it('renders only the rows in view, plus overscan', () => {
    // 5,000 rows of 18 px in a 360 px viewport scrolled to row 1000.
    const w = visibleRange(18_000, 360, 18, 5000, 8);
    expect(w).toEqual({ start: 992, end: 1029, top: 992 * 18, height: 90_000 });
    expect(w.end - w.start).toBeLessThan(40);
  });

  it('clamps at the edges and handles an empty list', () => {
    expect(visibleRange(0, 360, 18, 5000, 8)).toMatchObject({ start: 0, end: 29, top: 0 });
    expect(visibleRange(90_000, 360, 18, 5000, 8)).toMatchObject({ start: 4991, end: 5000 });
    expect(visibleRange(-50, 360, 18, 3, 8)).toMatchObject({ start: 0, end: 3 });
    expect(visibleRange(0, 360, 18, 0)).toEqual({ start: 0, end: 0, top: 0, height: 0 });
  });

  it('knows when the scroller is at the bottom (auto-scroll follows only then)', () => {
    expect(atBottom(640, 1000, 360)).toBe(true);
    expect(atBottom(634, 1000, 360)).toBe(true);
    expect(atBottom(500, 1000, 360)).toBe(false);
  });
});
