import { describe, expect, it } from 'vitest';
import { IncrementalMatcher, isWordStart, prepare, rank, scoreCandidate, splitLineSuffix } from './fuzzy';

const order = (q: string, paths: string[]) => rank(q, prepare(paths), 50).matches.map((m) => m.path);

describe('the quick-open matcher', () => {
  it.each([
    // [query, paths in any order, expected order]
    ['index', ['src/lib/bridge/index.ts', 'docs/index-of-things.md', 'src/reindexer.go', 'src/i_n_d_e_x.txt'],
      ['src/lib/bridge/index.ts', 'docs/index-of-things.md', 'src/reindexer.go', 'src/i_n_d_e_x.txt']],
    // the file name before the folders
    ['editor', ['src/features/editor/Explorer.svelte', 'src/editor.ts'], ['src/editor.ts', 'src/features/editor/Explorer.svelte']],
    // contiguous before word starts before scattered
    ['gps', ['x/gps.txt', 'src/GitPanelStore.ts', 'src/grapes.ts'], ['x/gps.txt', 'src/GitPanelStore.ts', 'src/grapes.ts']],
    // word starts across folders
    ['fe/ed', ['frontend/src/lib/features/editor/fuzzy.ts', 'free/deed.go'],
      ['frontend/src/lib/features/editor/fuzzy.ts', 'free/deed.go']],
    // a path-length tiebreak between equal matches
    ['main.go', ['cmd/tool/main.go', 'main.go', 'backend/x/main.go'], ['main.go', 'cmd/tool/main.go', 'backend/x/main.go']],
    // case does not matter
    ['README', ['docs/readme.md', 'README.md'], ['README.md', 'docs/readme.md']],
  ])('%s ranks as expected', (q, paths, want) => {
    expect(order(q, paths)).toEqual(want);
  });

  it('leaves out paths that do not hold the query in order', () => {
    expect(order('zq', ['a/b.ts', 'z/q.ts', 'q/z.ts'])).toEqual(['z/q.ts']);
    expect(order('abc', ['cba.txt'])).toEqual([]);
  });

  it('ignores spaces in the query and an empty query lists the shortest paths first', () => {
    expect(order('git panel', ['src/GitPanel.svelte', 'src/other.ts'])).toEqual(['src/GitPanel.svelte']);
    expect(order('', ['a/bb/c.ts', 'x.ts', 'a/b.ts'])).toEqual(['x.ts', 'a/b.ts', 'a/bb/c.ts']);
  });

  it('reports the matched positions for highlighting', () => {
    const [c] = prepare(['src/GitPanelStore.ts']);
    expect(scoreCandidate('gps', c)?.positions).toEqual([4, 7, 12]);
    expect(scoreCandidate('store', c)?.positions).toEqual([12, 13, 14, 15, 16]);
  });

  it('finds word starts at separators, camel humps and digits', () => {
    const p = 'a_bC-d.e/f2';
    expect([...p].map((_, i) => isWordStart(p, i))).toEqual([true, false, true, true, false, true, false, true, false, true, true]);
  });

  it('keeps the best `limit` matches and counts them all', () => {
    const paths = Array.from({ length: 1000 }, (_, i) => `dir${i % 10}/file${i}.ts`);
    const r = rank('file', prepare(paths), 10);
    expect(r.total).toBe(1000);
    expect(r.matches).toHaveLength(10);
    expect(r.matches[0].path).toBe('dir0/file0.ts');
  });

  it('narrows incrementally while typing and starts over when the query changes direction', () => {
    const m = new IncrementalMatcher();
    m.setFiles(['src/app.ts', 'src/apple.ts', 'lib/map.ts']);
    expect(m.query('ap').matches.map((x) => x.path)).toEqual(['src/app.ts', 'src/apple.ts', 'lib/map.ts']);
    expect(m.query('app').matches.map((x) => x.path)).toEqual(['src/app.ts', 'src/apple.ts']);
    expect(m.query('appl').matches.map((x) => x.path)).toEqual(['src/apple.ts']);
    expect(m.query('map').matches.map((x) => x.path)).toEqual(['lib/map.ts']);
    m.setFiles(['map/x.ts']);
    expect(m.query('map').matches.map((x) => x.path)).toEqual(['map/x.ts']);
  });

  it('splits a line and column typed after the path', () => {
    expect(splitLineSuffix('src/app.ts:12')).toEqual({ query: 'src/app.ts', line: 12, column: undefined });
    expect(splitLineSuffix('app:12:7')).toEqual({ query: 'app', line: 12, column: 7 });
    expect(splitLineSuffix('app')).toEqual({ query: 'app' });
  });
});
