import { describe, expect, it } from 'vitest';
import { buildTree, baseName, type PanelFile } from './tree';

const f = (path: string, additions = 1, deletions = 0): PanelFile => ({ path, status: 'modified', additions, deletions, binary: false });

describe('buildTree', () => {
  it('puts folders first, sorts each level and sums counts', () => {
    const t = buildTree([f('z.txt'), f('src/b.go', 2, 1), f('src/a.go', 3), f('src/deep/c.go', 0, 4), f('a.md')]);
    expect(t.dirs.map((d) => d.name)).toEqual(['src']);
    expect(t.files.map((x) => x.path)).toEqual(['a.md', 'z.txt']);
    const src = t.dirs[0];
    expect([src.count, src.additions, src.deletions]).toEqual([3, 5, 5]);
    expect(src.dirs.map((d) => d.path)).toEqual(['src/deep']);
    expect(src.files.map((x) => x.path)).toEqual(['src/a.go', 'src/b.go']);
    expect([t.count, t.additions, t.deletions]).toEqual([5, 7, 5]);
  });

  it('names files by their last segment', () => {
    expect(baseName('src/deep/c.go')).toBe('c.go');
    expect(baseName('nested-repo/')).toBe('nested-repo');
  });
});
