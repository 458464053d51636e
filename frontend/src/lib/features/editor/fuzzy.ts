// The quick-open matcher (Ctrl+P): fuzzy, ranked matching of a query against
// a workspace's relative file paths. Pure and allocation-light so that a
// keystroke over 50,000 paths stays well under 50 ms; it runs in a Web
// Worker (quickOpen.worker.ts) and, where workers are missing, in the page.
//
// Ranking, best first:
//   tier 4  the query is the file's name (or its name without extension)
//   tier 3  the query is a contiguous part of the file's name
//   tier 2  the query is a contiguous part of the path
//   tier 1  every query character starts a word (or continues a run that
//           started at one): "gps" → "GitPanelStore", "fe/ed" → "features/editor"
//   tier 0  the query's characters appear in order anywhere
// Inside a tier: a score (word starts, consecutive runs, matches in the
// name, few gaps), then the shorter path, then byte order.

/** A path prepared for matching. */
export interface Candidate {
  path: string;
  lower: string;
  /** Where the file name starts in path. */
  base: number;
}

/** One ranked match. */
export interface FuzzyMatch {
  path: string;
  score: number;
  /** Indices in path of the matched characters (for highlighting). */
  positions: number[];
}

const TIER = 1_000_000;
/** What score() answers for a candidate that does not match (or is not scored). */
const NO_MATCH = -Infinity;

/** Prepares paths for matching (lower-cased once, the name's start found once). */
export function prepare(paths: readonly string[]): Candidate[] {
  const out = new Array<Candidate>(paths.length);
  for (let i = 0; i < paths.length; i++) {
    const p = paths[i];
    out[i] = { path: p, lower: p.toLowerCase(), base: p.lastIndexOf('/') + 1 };
  }
  return out;
}

/** The query as matched: lower case, without spaces. */
export function normalizeQuery(q: string): string {
  return q.toLowerCase().replace(/\s+/g, '');
}

function isSeparator(code: number): boolean {
  // / _ - . space
  return code === 47 || code === 95 || code === 45 || code === 46 || code === 32;
}

/** Whether path[i] starts a word: after a separator, a lower→Upper step, or a letter→digit step. */
export function isWordStart(path: string, i: number): boolean {
  if (i === 0) return true;
  const prev = path.charCodeAt(i - 1);
  if (isSeparator(prev)) return true;
  const cur = path.charCodeAt(i);
  const curUpper = cur >= 65 && cur <= 90;
  const prevLower = prev >= 97 && prev <= 122;
  if (curUpper && prevLower) return true;
  const curDigit = cur >= 48 && cur <= 57;
  const prevDigit = prev >= 48 && prev <= 57;
  return curDigit && !prevDigit && !isSeparator(prev);
}

/** Whether q (normalized) is a subsequence of lower. */
function isSubsequence(q: string, lower: string): boolean {
  let j = 0;
  for (let k = 0; k < q.length; k++) {
    j = lower.indexOf(q[k], j);
    if (j < 0) return false;
    j++;
  }
  return true;
}

/** How many steps the word-start search may take per candidate (it backtracks). */
const WORD_START_BUDGET = 64;
/** Queries longer than this are cut (a path is rarely longer; it bounds the scratch space). */
export const MAX_QUERY = 256;

// Scratch space of one scoring: the matched positions, copied out only for
// the matches that are kept.
const scratch = new Int32Array(MAX_QUERY);
let budget = 0;

/**
 * A word-start alignment of q in c into scratch: each query character
 * continues the previous match's run or lies at a word start (a separator
 * in the query matches that separator anywhere). Tries the alternatives in
 * path order, with a bounded number of steps.
 */
function wordStartAlignment(q: string, c: Candidate): boolean {
  budget = WORD_START_BUDGET;
  return alignWordStarts(q, c, 0, 0, -2);
}

function alignWordStarts(q: string, c: Candidate, k: number, from: number, last: number): boolean {
  if (k === q.length) return true;
  if (budget-- <= 0) return false;
  const ch = q[k];
  if (last >= 0 && c.lower[last + 1] === ch) {
    scratch[k] = last + 1;
    if (alignWordStarts(q, c, k + 1, last + 2, last + 1)) return true;
  }
  const sep = isSeparator(ch.charCodeAt(0));
  for (let j = c.lower.indexOf(ch, from); j >= 0; j = c.lower.indexOf(ch, j + 1)) {
    if (budget <= 0) return false;
    if (j === last + 1 || !(sep || isWordStart(c.path, j))) continue;
    scratch[k] = j;
    if (alignWordStarts(q, c, k + 1, j + 1, j)) return true;
  }
  return false;
}

/** The leftmost in-order alignment from start into scratch; false when there is none. */
function alignFrom(q: string, lower: string, start: number): boolean {
  let j = start;
  for (let k = 0; k < q.length; k++) {
    j = lower.indexOf(q[k], j);
    if (j < 0) return false;
    scratch[k] = j++;
  }
  return true;
}

function contiguous(start: number, n: number): void {
  for (let k = 0; k < n; k++) scratch[k] = start + k;
}

/** The bonus of the alignment in scratch inside its tier (word starts, runs, name, gaps). */
function alignmentBonus(c: Candidate, n: number): number {
  let s = 0;
  for (let k = 0; k < n; k++) {
    const p = scratch[k];
    if (isWordStart(c.path, p)) s += 30;
    if (p >= c.base) s += 12;
    if (k > 0) {
      const gap = p - scratch[k - 1] - 1;
      if (gap === 0) s += 20;
      else s -= Math.min(gap, 20);
    }
  }
  // Earlier in the name is better.
  if (n > 0 && scratch[0] >= c.base) s += Math.max(0, 20 - (scratch[0] - c.base));
  return s;
}

/**
 * Scores one candidate for a normalized query: its tier and bonus as one
 * number (higher is better), the matched positions left in scratch; NO_MATCH
 * when q does not match. Candidates whose tier cannot reach `floorTier` are
 * not scored in detail (NO_MATCH too).
 */
function score(q: string, c: Candidate, floorTier: number): number {
  if (q.length === 0) return 0;
  if (!isSubsequence(q, c.lower)) return NO_MATCH;
  const nameLen = c.lower.length - c.base;
  // Tiers 4 and 3: contiguous in the file name.
  const inName = c.lower.indexOf(q, c.base);
  if (inName >= 0) {
    const dot = c.lower.lastIndexOf('.');
    const stemLen = dot > c.base ? dot - c.base : nameLen;
    const exact = inName === c.base && (q.length === nameLen || q.length === stemLen);
    contiguous(inName, q.length);
    let bonus = alignmentBonus(c, q.length);
    if (inName === c.base) bonus += 200;
    return (exact ? 4 : 3) * TIER + bonus;
  }
  if (floorTier > 2) return NO_MATCH;
  // Tier 2: contiguous in the path (the occurrence nearest the name).
  const inPath = c.lower.lastIndexOf(q);
  if (inPath >= 0) {
    contiguous(inPath, q.length);
    return 2 * TIER + alignmentBonus(c, q.length);
  }
  if (floorTier > 1) return NO_MATCH;
  // Tier 1: every character at a word start or continuing a run from one.
  if (wordStartAlignment(q, c)) return TIER + alignmentBonus(c, q.length);
  if (floorTier > 0) return NO_MATCH;
  // Tier 0: in order anywhere, in the file name when it fits there.
  if (!alignFrom(q, c.lower, c.base)) alignFrom(q, c.lower, 0);
  return alignmentBonus(c, q.length);
}

/**
 * Scores one candidate: its tier and bonus as one number (higher is better),
 * with the matched positions; null when q does not match.
 */
export function scoreCandidate(raw: string, c: Candidate): { score: number; positions: number[] } | null {
  const q = normalizeQuery(raw).slice(0, MAX_QUERY);
  const s = score(q, c, 0);
  return s === NO_MATCH ? null : { score: s, positions: Array.from(scratch.subarray(0, q.length)) };
}

/** Orders matches best first: score, then the shorter path, then byte order. */
export function compareMatches(a: { score: number; path: string }, b: { score: number; path: string }): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.path.length !== b.path.length) return a.path.length - b.path.length;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** The result of one query. */
export interface RankResult {
  matches: FuzzyMatch[];
  /** How many candidates matched in all (the list holds at most the limit). */
  total: number;
}

/**
 * Ranks candidates (the indices in `among`, or all) for q and keeps the best
 * `limit`; `matched` receives the indices of every candidate that matched,
 * for the next, longer query.
 */
export function rank(raw: string, cands: readonly Candidate[], limit: number, among?: readonly number[], matched?: number[]): RankResult {
  const q = normalizeQuery(raw).slice(0, MAX_QUERY);
  const top: FuzzyMatch[] = [];
  let total = 0;
  const n = among ? among.length : cands.length;
  for (let i = 0; i < n; i++) {
    const idx = among ? among[i] : i;
    const c = cands[idx];
    // Once the list is full, a candidate below the worst kept tier is only counted.
    const floor = top.length === limit && limit > 0 ? Math.floor(top[limit - 1].score / TIER) : 0;
    const s = score(q, c, floor);
    if (s === NO_MATCH) {
      // Not scored (below the kept tiers) but matching: counted, not kept.
      if (floor > 0 && isSubsequence(q, c.lower)) {
        total++;
        matched?.push(idx);
      }
      continue;
    }
    total++;
    matched?.push(idx);
    if (limit <= 0) continue;
    if (top.length === limit && compareMatches({ score: s, path: c.path }, top[limit - 1]) >= 0) continue;
    // Binary insertion keeps `top` sorted and at most `limit` long.
    const m: FuzzyMatch = { path: c.path, score: s, positions: Array.from(scratch.subarray(0, q.length)) };
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareMatches(top[mid], m) <= 0) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, m);
    if (top.length > limit) top.pop();
  }
  return { matches: top, total };
}

/**
 * A matcher that keeps the file list and, when a query extends the previous
 * one (typing), searches only the candidates the previous query matched.
 */
export class IncrementalMatcher {
  private cands: Candidate[] = [];
  private lastQuery = '';
  private lastMatched: number[] | null = null;

  /** Replaces the file list. */
  setFiles(paths: readonly string[]): void {
    this.cands = prepare(paths);
    this.lastQuery = '';
    this.lastMatched = null;
  }

  get size(): number {
    return this.cands.length;
  }

  /** Ranks the files for a query (an empty query lists the first `limit` files, shortest paths first). */
  query(raw: string, limit = 100): RankResult {
    const q = normalizeQuery(raw);
    const among = this.lastMatched && q.startsWith(this.lastQuery) && this.lastQuery !== '' ? this.lastMatched : undefined;
    const matched: number[] = [];
    const r = rank(q, this.cands, limit, among, matched);
    this.lastQuery = q;
    this.lastMatched = q === '' ? null : matched;
    return r;
  }
}

/** "src/app.ts:12:3" → the path and the 1-based line and column typed after it. */
export function splitLineSuffix(raw: string): { query: string; line?: number; column?: number } {
  const m = /^(.*?)(?::(\d+))?(?::(\d+))?\s*$/.exec(raw);
  if (!m || m[2] === undefined) return { query: raw };
  return { query: m[1], line: Number(m[2]), column: m[3] !== undefined ? Number(m[3]) : undefined };
}
