// The workspace search panel (Ctrl+Shift+F): workspace_search over the tab's
// folder with a query, regex and case switches and a glob, the matches
// grouped by file in the order the tool found them. A new search cancels the
// one running; a failed one says why (a bad regex names the query).
import { errorText, resultError } from '../../stores/toasts.svelte';
import { fileTools, type SearchMatch } from './fileTools';

/** The matches of one file. */
export interface FileMatches {
  path: string;
  matches: SearchMatch[];
}

/** Groups matches by file, keeping the first-seen order of files and the order of matches. */
export function groupByFile(matches: readonly SearchMatch[]): FileMatches[] {
  const byPath = new Map<string, FileMatches>();
  for (const m of matches) {
    let g = byPath.get(m.path);
    if (!g) byPath.set(m.path, (g = { path: m.path, matches: [] }));
    g.matches.push(m);
  }
  return [...byPath.values()];
}

/**
 * A match's line with the match marked: the text before, the match and
 * after, the line's leading whitespace dropped and long text around the
 * match cut with an ellipsis (columns are 1-based UTF-16 units).
 */
export function matchPreview(m: SearchMatch, context = 16): { before: string; match: string; after: string } {
  const start = Math.max(0, m.column - 1);
  const end = Math.max(start, Math.min(m.text.length, m.endColumn - 1));
  let before = m.text.slice(0, start).replace(/^\s+/, '');
  if (before.length > context) before = '…' + before.slice(before.length - context);
  let after = m.text.slice(end);
  if (after.length > context * 4) after = after.slice(0, context * 4) + '…';
  return { before, match: m.text.slice(start, end), after };
}

/** The search panel's state for one editor tab. */
export class SearchStore {
  query = $state('');
  isRegex = $state(false);
  caseSensitive = $state(false);
  /** Only files whose names match (e.g. "*.go"); '' for all. */
  glob = $state('');

  results = $state.raw<FileMatches[]>([]);
  total = $state(0);
  truncated = $state(false);
  filesSearched = $state(0);
  searching = $state(false);
  error = $state('');
  /** The query the results are for ('' before the first search). */
  searched = $state('');
  /** Files whose matches are folded. */
  collapsed = $state.raw(new Set<string>());

  private ac: AbortController | null = null;

  constructor(readonly cwd: string) {}

  /** Runs the search for the current fields (an empty query clears the results). */
  async run(): Promise<void> {
    this.ac?.abort();
    const query = this.query;
    if (query.trim() === '') {
      this.clear();
      return;
    }
    const ac = new AbortController();
    this.ac = ac;
    this.searching = true;
    this.error = '';
    try {
      const r = await fileTools.search(
        this.cwd,
        { query, isRegex: this.isRegex, caseSensitive: this.caseSensitive, glob: this.glob.trim() || undefined, maxResults: 2000 },
        ac.signal,
      );
      if (ac.signal.aborted) return;
      if (!r.ok || !r.content) {
        this.error = resultError(r, 'search');
        this.results = [];
        this.total = 0;
        return;
      }
      const matches = r.content.matches ?? [];
      this.results = groupByFile(matches);
      this.total = matches.length;
      this.truncated = r.content.truncated;
      this.filesSearched = r.content.filesSearched;
      this.searched = query;
      this.collapsed = new Set();
    } catch (err) {
      if (!ac.signal.aborted) this.error = errorText(err);
    } finally {
      if (this.ac === ac) {
        this.searching = false;
        this.ac = null;
      }
    }
  }

  clear(): void {
    this.ac?.abort();
    this.results = [];
    this.total = 0;
    this.truncated = false;
    this.filesSearched = 0;
    this.searched = '';
    this.error = '';
    this.searching = false;
  }

  toggleCollapsed(path: string): void {
    const next = new Set(this.collapsed);
    if (next.has(path)) next.delete(path);
    else next.add(path);
    this.collapsed = next;
  }

  dispose(): void {
    this.ac?.abort();
  }
}
