// The page's side of the quick-open matcher: a Web Worker running fuzzy.ts
// (quickOpen.worker.ts), or the same matcher in the page where workers are
// missing (tests). Each query answers with the best matches and the time the
// matching took; callers keep only the answer of their latest query.
import { IncrementalMatcher, type FuzzyMatch } from './fuzzy';

/** A message to the worker. */
export type MatcherRequest = { type: 'files'; paths: string[] } | { type: 'query'; id: number; query: string; limit: number };

/** The worker's answer to a query. */
export interface MatcherResponse {
  type: 'result';
  id: number;
  matches: FuzzyMatch[];
  total: number;
  /** Milliseconds the matching took. */
  ms: number;
}

/** Ranks file paths for queries; see fuzzy.ts for the order. */
export class QuickOpenMatcher {
  private worker: Worker | null = null;
  private local: IncrementalMatcher | null = null;
  private seq = 0;
  private waiting = new Map<number, { resolve: (r: MatcherResponse) => void; query: string; limit: number }>();

  constructor(useWorker = typeof Worker !== 'undefined') {
    if (useWorker) {
      try {
        this.worker = new Worker(new URL('./quickOpen.worker.ts', import.meta.url), { type: 'module' });
        this.worker.onmessage = (e: MessageEvent<MatcherResponse>) => {
          const done = this.waiting.get(e.data.id);
          this.waiting.delete(e.data.id);
          done?.resolve(e.data);
        };
        this.worker.onerror = () => this.fallBack();
      } catch {
        this.worker = null;
      }
    }
    if (!this.worker) this.local = new IncrementalMatcher();
  }

  private files: string[] = [];

  /** Replaces the list of paths. */
  setFiles(paths: string[]): void {
    this.files = paths;
    if (this.worker) this.worker.postMessage({ type: 'files', paths } satisfies MatcherRequest);
    else this.local?.setFiles(paths);
  }

  /** Ranks the paths for a query. */
  query(query: string, limit = 100): Promise<MatcherResponse> {
    const id = ++this.seq;
    if (!this.worker) return Promise.resolve(this.inPage(id, query, limit));
    return new Promise((resolve) => {
      this.waiting.set(id, { resolve, query, limit });
      this.worker!.postMessage({ type: 'query', id, query, limit } satisfies MatcherRequest);
    });
  }

  private inPage(id: number, query: string, limit: number): MatcherResponse {
    const t0 = performance.now();
    const r = (this.local ??= new IncrementalMatcher()).query(query, limit);
    return { type: 'result', id, matches: r.matches, total: r.total, ms: performance.now() - t0 };
  }

  /** A worker that failed to load: match in the page from now on (queries waiting on it too). */
  private fallBack(): void {
    this.worker?.terminate();
    this.worker = null;
    this.local = new IncrementalMatcher();
    this.local.setFiles(this.files);
    const pending = [...this.waiting.entries()];
    this.waiting.clear();
    for (const [id, w] of pending) w.resolve(this.inPage(id, w.query, w.limit));
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
    this.waiting.clear();
  }
}
