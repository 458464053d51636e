// Pure model for one file's unified diff (`git diff -- <path>` output):
// parsing, word-level pairing of changed lines and flat display rows for the
// virtualised DiffView.

export type LineKind = 'context' | 'add' | 'del' | 'nonewline';
export type HunkAction = 'stage' | 'unstage' | 'discard';

export interface DiffLine {
  kind: LineKind;
  /** The line without its leading marker (for 'nonewline': the note text). */
  text: string;
  oldNo?: number;
  newNo?: number;
}

export interface Hunk {
  header: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

export interface FileDiff {
  /** `diff --git`, `index`, `---`/`+++`, mode and rename lines before the first hunk. */
  headerLines: string[];
  hunks: Hunk[];
  binary: boolean;
  /** Non-diff text given instead of a patch (e.g. "Large untracked file omitted from preview."). */
  placeholder: string | null;
}

export interface Segment {
  text: string;
  changed: boolean;
}

export interface WordPair {
  del: Segment[];
  add: Segment[];
}

export interface HunkRow {
  type: 'hunk';
  hunkIndex: number;
  header: string;
}

export interface LineRow extends DiffLine {
  type: 'line';
  hunkIndex: number;
  /** The line's index in its hunk's lines. */
  lineIndex: number;
  /** Text of the paired line on the other side, for the word diff. */
  partner?: string;
}

export type DiffRow = HunkRow | LineRow;

/** Lines longer than this get no word diff. */
export const WORD_DIFF_MAX_CHARS = 1000;

const HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const BINARY_RE = /^(Binary files .* differ|GIT binary patch)$/m;

export function parseFileDiff(text: string): FileDiff {
  const result: FileDiff = { headerLines: [], hunks: [], binary: false, placeholder: null };
  if (text.trim() === '') return result;
  if (BINARY_RE.test(text)) result.binary = true;

  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();

  let hunk: Hunk | null = null;
  let oldNo = 0;
  let newNo = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (const raw of lines) {
    const m = HUNK_RE.exec(raw);
    if (m) {
      hunk = {
        header: raw,
        oldStart: Number(m[1]),
        oldLines: m[2] === undefined ? 1 : Number(m[2]),
        newStart: Number(m[3]),
        newLines: m[4] === undefined ? 1 : Number(m[4]),
        lines: [],
      };
      result.hunks.push(hunk);
      oldNo = hunk.oldStart;
      newNo = hunk.newStart;
      oldLeft = hunk.oldLines;
      newLeft = hunk.newLines;
      continue;
    }
    if (!hunk) {
      result.headerLines.push(raw);
      continue;
    }
    const c = raw[0];
    if (c === '\\') {
      hunk.lines.push({ kind: 'nonewline', text: raw.replace(/^\\ ?/, '') });
    } else if (c === '-' && oldLeft > 0) {
      hunk.lines.push({ kind: 'del', text: raw.slice(1), oldNo: oldNo++ });
      oldLeft--;
    } else if (c === '+' && newLeft > 0) {
      hunk.lines.push({ kind: 'add', text: raw.slice(1), newNo: newNo++ });
      newLeft--;
    } else if ((c === ' ' || raw === '') && oldLeft > 0 && newLeft > 0) {
      // An empty line stands for an empty context line whose space was stripped.
      hunk.lines.push({ kind: 'context', text: raw.slice(1), oldNo: oldNo++, newNo: newNo++ });
      oldLeft--;
      newLeft--;
    }
    // Anything else after the hunk's counted lines (e.g. a following file) is ignored.
  }

  const isPatch = result.binary || result.hunks.length > 0 || /^(diff |--- |\+\+\+ |index )/m.test(text);
  if (!isPatch) {
    result.placeholder = text.trim();
    result.headerLines = [];
  }
  return result;
}

/** Words, whitespace runs and single punctuation characters. */
export function tokenize(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu) ?? [];
}

/**
 * Word-level diff of a deleted/added line pair (LCS over tokens). Returns null
 * when either line is too long to be worth it.
 */
export function pairWordDiff(delText: string, addText: string): WordPair | null {
  if (delText.length > WORD_DIFF_MAX_CHARS || addText.length > WORD_DIFF_MAX_CHARS) return null;
  const a = tokenize(delText);
  const b = tokenize(addText);

  // Trim the common prefix and suffix; the LCS runs on the middle only.
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  const n = am.length;
  const m = bm.length;

  // dp[i * (m + 1) + j] = LCS length of am[i..] and bm[j..].
  const w = m + 1;
  const dp = new Uint16Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i * w + j] = am[i] === bm[j] ? dp[(i + 1) * w + j + 1] + 1 : Math.max(dp[(i + 1) * w + j], dp[i * w + j + 1]);
    }
  }
  const aChanged: boolean[] = new Array(n).fill(true);
  const bChanged: boolean[] = new Array(m).fill(true);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (am[i] === bm[j]) {
      aChanged[i++] = false;
      bChanged[j++] = false;
    } else if (dp[(i + 1) * w + j] >= dp[i * w + j + 1]) i++;
    else j++;
  }

  const side = (tokens: string[], middle: boolean[]): Segment[] => {
    const flags = [...new Array(pre).fill(false), ...middle, ...new Array(suf).fill(false)] as boolean[];
    // Whitespace kept between two changed tokens is highlighted with them.
    for (let k = 1; k < tokens.length - 1; k++) {
      if (!flags[k] && flags[k - 1] && flags[k + 1] && /^\s+$/.test(tokens[k])) flags[k] = true;
    }
    const out: Segment[] = [];
    tokens.forEach((t, k) => {
      const last = out[out.length - 1];
      if (last && last.changed === flags[k]) last.text += t;
      else out.push({ text: t, changed: flags[k] });
    });
    return out;
  };
  return { del: side(a, aChanged), add: side(b, bChanged) };
}

/**
 * Pairs each run of deleted lines with the added lines right after it, one to
 * one (extra lines of the longer run stay unpaired). Returns [delIndex, addIndex].
 */
export function pairRuns(lines: DiffLine[]): [number, number][] {
  const pairs: [number, number][] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i].kind !== 'del') {
      i++;
      continue;
    }
    const dels: number[] = [];
    while (i < lines.length && (lines[i].kind === 'del' || lines[i].kind === 'nonewline')) {
      if (lines[i].kind === 'del') dels.push(i);
      i++;
    }
    const adds: number[] = [];
    while (i < lines.length && (lines[i].kind === 'add' || lines[i].kind === 'nonewline')) {
      if (lines[i].kind === 'add') adds.push(i);
      i++;
    }
    for (let k = 0; k < Math.min(dels.length, adds.length); k++) pairs.push([dels[k], adds[k]]);
  }
  return pairs;
}

/** One row per hunk header and per line, in display order. */
export function flattenRows(model: FileDiff): DiffRow[] {
  const rows: DiffRow[] = [];
  model.hunks.forEach((hunk, hunkIndex) => {
    rows.push({ type: 'hunk', hunkIndex, header: hunk.header });
    const partner = new Map<number, string>();
    for (const [d, a] of pairRuns(hunk.lines)) {
      partner.set(d, hunk.lines[a].text);
      partner.set(a, hunk.lines[d].text);
    }
    hunk.lines.forEach((line, k) => {
      const row: LineRow = { type: 'line', hunkIndex, lineIndex: k, ...line };
      const p = partner.get(k);
      if (p !== undefined) row.partner = p;
      rows.push(row);
    });
  });
  return rows;
}

/** Word segments of a line row: highlighted when paired, plain otherwise. */
export function rowSegments(row: LineRow): Segment[] {
  if (row.partner !== undefined) {
    const pair = row.kind === 'del' ? pairWordDiff(row.text, row.partner) : pairWordDiff(row.partner, row.text);
    if (pair) return row.kind === 'del' ? pair.del : pair.add;
  }
  return [{ text: row.text, changed: false }];
}

/** Largest line number shown, for sizing the gutters. */
export function maxLineNumber(model: FileDiff): number {
  return model.hunks.reduce((m, h) => Math.max(m, h.oldStart + h.oldLines, h.newStart + h.newLines), 0);
}

/** A selected change line: its hunk and its index in the hunk's lines. */
export type LineRef = `${number}:${number}`;

/** The key of a line in a selection set. */
export function lineRef(hunkIndex: number, lineIndex: number): LineRef {
  return `${hunkIndex}:${lineIndex}`;
}

/** The change lines of hunk h, as a selection of the whole hunk. */
export function wholeHunk(model: FileDiff, h: number): Set<string> {
  const out = new Set<string>();
  model.hunks[h]?.lines.forEach((l, k) => {
    if (l.kind === 'add' || l.kind === 'del') out.add(lineRef(h, k));
  });
  return out;
}

/**
 * Builds the patch that stages (or, with reverse, unstages or discards)
 * only the selected change lines of a file's diff, the way git's "stage
 * selected lines" does: for staging, an unselected deletion stays as context
 * and an unselected addition is left out; for reverse, an unselected
 * addition stays as context and an unselected deletion is left out. Hunks
 * without a selected line are dropped and the headers are recounted.
 * Returns '' when nothing is selected.
 */
export function selectedLinesPatch(model: FileDiff, selected: ReadonlySet<string>, reverse: boolean): string {
  const out: string[] = [...model.headerLines];
  let kept = 0;
  model.hunks.forEach((hunk, h) => {
    const body: string[] = [];
    let oldCount = 0;
    let newCount = 0;
    let any = false;
    let lastKept: 'context' | 'add' | 'del' | null = null;
    for (let k = 0; k < hunk.lines.length; k++) {
      const line = hunk.lines[k];
      const sel = selected.has(lineRef(h, k));
      if (line.kind === 'nonewline') {
        // The marker belongs to the line before it, if that line was kept.
        if (lastKept) body.push('\\ ' + line.text);
        continue;
      }
      let kind: 'context' | 'add' | 'del' | null = line.kind;
      if (line.kind === 'add' && !sel) kind = reverse ? 'context' : null;
      if (line.kind === 'del' && !sel) kind = reverse ? null : 'context';
      if (line.kind !== 'context' && sel) any = true;
      lastKept = kind;
      if (kind === null) continue;
      body.push((kind === 'context' ? ' ' : kind === 'add' ? '+' : '-') + line.text);
      if (kind !== 'add') oldCount++;
      if (kind !== 'del') newCount++;
    }
    if (!any) return;
    kept++;
    // The starts stay the hunk's: the side a patch is applied to keeps its
    // lines (context is never dropped), and git and meith search nearby
    // offsets for the other.
    out.push(`@@ -${hunk.oldStart},${oldCount} +${hunk.newStart},${newCount} @@`, ...body);
  });
  return kept === 0 ? '' : out.join('\n') + '\n';
}

/**
 * The line of the new side where hunk h's first change is (1-based): an
 * added line's own number, or for a deletion the line that now stands where
 * the deleted text was. "Open in editor" goes there.
 */
export function hunkNewLine(model: FileDiff, h: number): number {
  const hunk = model.hunks[h];
  if (!hunk) return 1;
  let after = 0; // the new-side number of the last line before the change
  for (const l of hunk.lines) {
    if (l.kind === 'add') return Math.max(1, l.newNo ?? 1);
    if (l.kind === 'del') return Math.max(1, after ? after + 1 : hunk.newStart);
    if (l.newNo !== undefined) after = l.newNo;
  }
  return Math.max(1, hunk.newStart);
}
