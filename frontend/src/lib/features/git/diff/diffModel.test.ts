import { describe, expect, it } from 'vitest';
import { flattenRows, hunkNewLine, pairRuns, pairWordDiff, parseFileDiff, rowSegments, tokenize, type DiffLine, type LineRow } from './diffModel';

// Real `git diff -- <path>` outputs.
const modified = `diff --git a/mod.txt b/mod.txt
index 85c3040..8ec3845 100644
--- a/mod.txt
+++ b/mod.txt
@@ -1,3 +1,3 @@
 alpha
-beta
+beta changed here
 gamma
`;
const added = `diff --git a/add.txt b/add.txt
new file mode 100644
index 0000000..07f33c4
--- /dev/null
+++ b/add.txt
@@ -0,0 +1,2 @@
+new
+file
`;
const deleted = `diff --git a/del.txt b/del.txt
deleted file mode 100644
index d3bc718..0000000
--- a/del.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-gone
-bye
`;
const noNewline = `diff --git a/nonl.txt b/nonl.txt
index c54071e..de99fd3 100644
--- a/nonl.txt
+++ b/nonl.txt
@@ -1,2 +1,2 @@
 keep
-last
\\ No newline at end of file
+last line
`;
const twoHunks = `diff --git a/many.txt b/many.txt
index e8823e1..464930f 100644
--- a/many.txt
+++ b/many.txt
@@ -1,6 +1,6 @@
 1
 2
-3
+three
 4
 5
 6
@@ -22,7 +22,7 @@ func main() {
 22
 23
 24
-25
+twenty-five
 26
 27
 28
`;
const binary = `diff --git a/b.bin b/b.bin
index 88768ef..3e3315e 100644
Binary files a/b.bin and b/b.bin differ
`;

const kinds = (lines: DiffLine[]) => lines.map((l) => l.kind);
const nos = (lines: DiffLine[]) => lines.map((l) => [l.oldNo ?? null, l.newNo ?? null]);

describe('parseFileDiff', () => {
  it('parses a modified file', () => {
    const d = parseFileDiff(modified);
    expect(d.binary).toBe(false);
    expect(d.placeholder).toBeNull();
    expect(d.headerLines).toEqual(['diff --git a/mod.txt b/mod.txt', 'index 85c3040..8ec3845 100644', '--- a/mod.txt', '+++ b/mod.txt']);
    expect(d.hunks).toHaveLength(1);
    const h = d.hunks[0];
    expect([h.oldStart, h.oldLines, h.newStart, h.newLines]).toEqual([1, 3, 1, 3]);
    expect(h.header).toBe('@@ -1,3 +1,3 @@');
    expect(kinds(h.lines)).toEqual(['context', 'del', 'add', 'context']);
    expect(h.lines.map((l) => l.text)).toEqual(['alpha', 'beta', 'beta changed here', 'gamma']);
    expect(nos(h.lines)).toEqual([[1, 1], [2, null], [null, 2], [3, 3]]);
  });

  it('parses an added file', () => {
    const d = parseFileDiff(added);
    expect(d.headerLines).toContain('new file mode 100644');
    expect(d.hunks[0].oldStart).toBe(0);
    expect(kinds(d.hunks[0].lines)).toEqual(['add', 'add']);
    expect(nos(d.hunks[0].lines)).toEqual([[null, 1], [null, 2]]);
  });

  it('parses a deleted file', () => {
    const d = parseFileDiff(deleted);
    expect(kinds(d.hunks[0].lines)).toEqual(['del', 'del']);
    expect(nos(d.hunks[0].lines)).toEqual([[1, null], [2, null]]);
    expect(d.hunks[0].newLines).toBe(0);
  });

  it('keeps the no-newline marker as its own line without numbers', () => {
    const lines = parseFileDiff(noNewline).hunks[0].lines;
    expect(kinds(lines)).toEqual(['context', 'del', 'nonewline', 'add']);
    expect(lines[2]).toEqual({ kind: 'nonewline', text: 'No newline at end of file' });
    expect(nos(lines)).toEqual([[1, 1], [2, null], [null, null], [null, 2]]);
  });

  it('parses several hunks with their own line numbers and section text', () => {
    const d = parseFileDiff(twoHunks);
    expect(d.hunks).toHaveLength(2);
    expect(d.hunks[1].header).toBe('@@ -22,7 +22,7 @@ func main() {');
    expect(nos(d.hunks[1].lines)).toEqual([[22, 22], [23, 23], [24, 24], [25, null], [null, 25], [26, 26], [27, 27], [28, 28]]);
  });

  it('handles hunk headers without counts and stripped empty context lines', () => {
    const d = parseFileDiff('--- a/x\n+++ b/x\n@@ -5 +5,2 @@\n-a\n+b\n+\n');
    expect([d.hunks[0].oldLines, d.hunks[0].newLines]).toEqual([1, 2]);
    const e = parseFileDiff('@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n');
    expect(kinds(e.hunks[0].lines)).toEqual(['context', 'context', 'del', 'add']);
    expect(nos(e.hunks[0].lines)[1]).toEqual([2, 2]);
  });

  it('flags binary patches', () => {
    const d = parseFileDiff(binary);
    expect(d.binary).toBe(true);
    expect(d.hunks).toEqual([]);
    expect(d.placeholder).toBeNull();
    expect(parseFileDiff('Binary files a/x and b/x differ').binary).toBe(true);
  });

  it('turns non-diff text into a placeholder and empty text into nothing', () => {
    const d = parseFileDiff('Large untracked file omitted from preview.\n');
    expect(d.placeholder).toBe('Large untracked file omitted from preview.');
    expect(d.hunks).toEqual([]);
    expect(parseFileDiff('')).toEqual({ headerLines: [], hunks: [], binary: false, placeholder: null });
  });
});

describe('pairWordDiff', () => {
  it('tokenizes words, whitespace and punctuation', () => {
    expect(tokenize('foo(bar, 12)  x')).toEqual(['foo', '(', 'bar', ',', ' ', '12', ')', '  ', 'x']);
  });

  it('marks only the changed words', () => {
    const p = pairWordDiff('const a = foo(1);', 'const a = bar(1);')!;
    expect(p.del).toEqual([
      { text: 'const a = ', changed: false },
      { text: 'foo', changed: true },
      { text: '(1);', changed: false },
    ]);
    expect(p.add).toEqual([
      { text: 'const a = ', changed: false },
      { text: 'bar', changed: true },
      { text: '(1);', changed: false },
    ]);
  });

  it('marks insertions on the added side only', () => {
    const p = pairWordDiff('beta', 'beta changed here')!;
    expect(p.del).toEqual([{ text: 'beta', changed: false }]);
    expect(p.add).toEqual([
      { text: 'beta', changed: false },
      { text: ' changed here', changed: true },
    ]);
  });

  it('joins the segments back into the lines', () => {
    const del = 'if (x > 1) { return y; }';
    const add = 'if (x >= 2) { return z + y; }';
    const p = pairWordDiff(del, add)!;
    expect(p.del.map((s) => s.text).join('')).toBe(del);
    expect(p.add.map((s) => s.text).join('')).toBe(add);
    expect(p.add.filter((s) => s.changed).map((s) => s.text)).toEqual(['= 2', ' z +']);
  });

  it('skips lines over 1,000 characters', () => {
    expect(pairWordDiff('a'.repeat(1001), 'b')).toBeNull();
    expect(pairWordDiff('a', 'b'.repeat(1001))).toBeNull();
    expect(pairWordDiff('a '.repeat(500), 'b')).not.toBeNull();
  });
});

describe('pairRuns and flattenRows', () => {
  const l = (kind: DiffLine['kind'], text: string = kind): DiffLine => ({ kind, text });

  it('pairs a run of deletions with the following additions one to one', () => {
    const lines = [l('context'), l('del', 'a'), l('del', 'b'), l('del', 'c'), l('add', 'A'), l('add', 'B'), l('context'), l('del', 'd'), l('add', 'D'), l('add', 'E')];
    expect(pairRuns(lines)).toEqual([[1, 4], [2, 5], [7, 8]]);
  });

  it('does not pair additions that come first or are separated by context', () => {
    expect(pairRuns([l('add'), l('del')])).toEqual([]);
    expect(pairRuns([l('del'), l('context'), l('add')])).toEqual([]);
  });

  it('pairs across a no-newline marker', () => {
    expect(pairRuns(parseFileDiff(noNewline).hunks[0].lines)).toEqual([[1, 3]]);
  });

  it('flattens hunks into header and line rows with partners', () => {
    const rows = flattenRows(parseFileDiff(twoHunks));
    expect(rows).toHaveLength(2 + 7 + 8);
    expect(rows[0]).toEqual({ type: 'hunk', hunkIndex: 0, header: '@@ -1,6 +1,6 @@' });
    expect(rows[8]).toMatchObject({ type: 'hunk', hunkIndex: 1 });
    const del = rows[3] as LineRow;
    expect(del).toMatchObject({ type: 'line', hunkIndex: 0, kind: 'del', text: '3', oldNo: 3, partner: 'three' });
    expect(rows[4]).toMatchObject({ kind: 'add', text: 'three', newNo: 3, partner: '3' });
    expect((rows[1] as LineRow).partner).toBeUndefined();
    expect(rowSegments(del)).toEqual([{ text: '3', changed: true }]);
    expect(rowSegments(rows[1] as LineRow)).toEqual([{ text: '1', changed: false }]);
  });

  it('has no rows for binary or placeholder text', () => {
    expect(flattenRows(parseFileDiff(binary))).toEqual([]);
    expect(flattenRows(parseFileDiff('Large untracked file omitted from preview.'))).toEqual([]);
  });
});

describe('hunkNewLine (Open in editor at a hunk)', () => {
  // git diff of a 16-line file: "a" deleted at the top, "E" added after "d", "m".."o" deleted.
  const twoHunks = `diff --git a/f.txt b/f.txt
index b03757e..86eacec 100644
--- a/f.txt
+++ b/f.txt
@@ -1,7 +1,7 @@
-a
 b
 c
 d
+E
 e
 f
 g
@@ -10,7 +10,4 @@ i
 j
 k
 l
-m
-n
-o
 p
`;
  it.each([
    ['a deletion at the top: line 1', twoHunks, 0, 1],
    ['a deletion after context: the line now in its place', twoHunks, 1, 13],
    ['an added file: its first line', added, 0, 1],
    ['a modified line: its new number', modified, 0, 2],
    ['a deleted file: line 1', deleted, 0, 1],
    ['no such hunk: line 1', modified, 5, 1],
  ])('%s', (_name, text, h, want) => {
    expect(hunkNewLine(parseFileDiff(text), h)).toBe(want);
  });
});
