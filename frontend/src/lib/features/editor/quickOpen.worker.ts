// The quick-open matcher's worker: keeps the workspace's file list and ranks
// it for each query off the page's main thread (see fuzzy.ts). Messages:
//   {type:'files', paths}            replaces the list
//   {type:'query', id, query, limit} → {type:'result', id, matches, total, ms}
import { IncrementalMatcher } from './fuzzy';
import type { MatcherRequest, MatcherResponse } from './quickOpenMatcher';

const matcher = new IncrementalMatcher();

self.onmessage = (e: MessageEvent<MatcherRequest>) => {
  const msg = e.data;
  if (msg.type === 'files') {
    matcher.setFiles(msg.paths);
    return;
  }
  const t0 = performance.now();
  const r = matcher.query(msg.query, msg.limit);
  const out: MatcherResponse = { type: 'result', id: msg.id, matches: r.matches, total: r.total, ms: performance.now() - t0 };
  (self as unknown as Worker).postMessage(out);
};
