// Filename heuristic for commit-message suggestions, ported from the original
// meith GitPanel (reference §6.4, "Filename heuristic fallback"). Pure and
// deterministic: the same file list always gives the same message.
//
// The caller picks the source list: the staged files if any, else all files.

export interface SuggestFile {
  path: string;
  status: string;
  additions: number;
  deletions: number;
}

export interface Suggestion {
  message: string;
  reason: string;
}

export type CommitType = 'docs' | 'test' | 'style' | 'chore' | 'feat' | 'fix';

export const DEFAULT_WHY = 'No agent is configured for suggestions; used the file-name heuristic.';

/** Subjects are cut to this many characters. */
export const MAX_SUBJECT = 72;

const norm = (p: string) => p.replace(/\\/g, '/').replace(/^\.\//, '');
const basename = (p: string) => norm(p).split('/').filter(Boolean).pop() ?? p;

// Reference: `docs/`, README.md, `.md`, `.mdx`. `docs/` is matched as any path
// segment (so `web/docs/x.png` counts) — the reference does not say whether it
// must be the first segment; that choice is ours.
function isDocs(p: string): boolean {
  const n = norm(p).toLowerCase();
  return n.startsWith('docs/') || n.includes('/docs/') || basename(n) === 'readme.md' || /\.mdx?$/.test(n);
}

// Reference: `__tests__/`, `.test.ts(x)`, `.spec.ts(x)`.
function isTest(p: string): boolean {
  const n = norm(p);
  return n.startsWith('__tests__/') || n.includes('/__tests__/') || /\.(test|spec)\.tsx?$/.test(n);
}

// Reference: `.css/.scss/.sass`.
const isStyle = (p: string) => /\.(css|scss|sass)$/i.test(norm(p));

// Reference: "any package.json or lockfile". The lockfile names are our choice
// (the reference does not list them): the common JS ones plus Go's go.sum.
const LOCKFILES = new Set(['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb', 'go.sum']);
const isManifest = (p: string) => {
  const b = basename(p);
  return b === 'package.json' || LOCKFILES.has(b);
};

// Status spellings: the backend sends words ("added", "untracked", "deleted");
// the porcelain letters are accepted too.
const isAdded = (s: string) => ['added', 'untracked', 'a', '?', '??'].includes(s.trim().toLowerCase());
const isDeleted = (s: string) => ['deleted', 'd'].includes(s.trim().toLowerCase());

/**
 * The type, in the reference's order: all docs → docs; all tests → test; all
 * styles → style; any package.json or lockfile → chore; any added or untracked
 * file → feat; any deleted file → chore; otherwise fix.
 *
 * The original also chose feat when the patch added an
 * `export class/function/interface/type/const` line. This function only gets
 * file names and counts, not patches, so that rule cannot apply here.
 */
export function commitType(files: readonly SuggestFile[]): CommitType {
  const paths = files.map((f) => f.path);
  if (paths.length > 0) {
    if (paths.every(isDocs)) return 'docs';
    if (paths.every(isTest)) return 'test';
    if (paths.every(isStyle)) return 'style';
  }
  if (paths.some(isManifest)) return 'chore';
  if (files.some((f) => isAdded(f.status))) return 'feat';
  if (files.some((f) => isDeleted(f.status))) return 'chore';
  return 'fix';
}

/** Cut a subject to MAX_SUBJECT characters, ending with an ellipsis when cut. */
export function clampSubject(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= MAX_SUBJECT ? one : `${one.slice(0, MAX_SUBJECT - 1).trimEnd()}…`;
}

/**
 * Message shapes (reference):
 * - one file → `<type>: update <basename>`;
 * - several → `<type>: update <first path segment or basename> source control changes`.
 * The reference does not say which file gives the segment; we use the first
 * file in the list (its first folder, or its basename when it is top-level).
 * The empty list is not covered by the reference; `chore: update files` is our choice.
 */
export function suggestCommitMessage(files: readonly SuggestFile[], why: string = DEFAULT_WHY): Suggestion {
  if (files.length === 0) return { message: 'chore: update files', reason: why };
  const type = commitType(files);
  let subject: string;
  if (files.length === 1) {
    subject = `${type}: update ${basename(files[0].path)}`;
  } else {
    const segments = norm(files[0].path).split('/').filter(Boolean);
    const scope = segments.length > 1 ? segments[0] : basename(files[0].path);
    subject = `${type}: update ${scope} source control changes`;
  }
  return { message: clampSubject(subject), reason: why };
}
