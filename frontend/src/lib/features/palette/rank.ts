// The palette's ranking: the editor's quick-open matcher (fuzzy.ts) over the
// actions' labels, so "tgdr" finds "Toggle the drawer" and a typed word that
// starts a label beats one inside it. An empty query keeps the list's order.
import { compareMatches, prepare, scoreCandidate } from '../editor/fuzzy';

/** One ranked entry: the item and the matched positions in its label. */
export interface Ranked<T> {
  item: T;
  positions: number[];
}

/** The items whose label matches query, best first (all of them, in order, for an empty query). */
export function rankByLabel<T extends { label: string }>(query: string, items: readonly T[]): Ranked<T>[] {
  if (!query.trim()) return items.map((item) => ({ item, positions: [] }));
  // Labels hold no folders: the whole label counts as the "file name".
  const cands = prepare(items.map((i) => i.label.replaceAll('/', ' '))).map((c) => ({ ...c, base: 0 }));
  const scored: { item: T; path: string; score: number; positions: number[]; order: number }[] = [];
  cands.forEach((c, order) => {
    const s = scoreCandidate(query, c);
    if (s) scored.push({ item: items[order], path: c.path, score: s.score, positions: s.positions, order });
  });
  scored.sort((a, b) => compareMatches(a, b) || a.order - b.order);
  return scored.map(({ item, positions }) => ({ item, positions }));
}
