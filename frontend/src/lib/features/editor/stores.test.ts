// The editor's other stores (quick open's file list, search, explorer) and
// the gutter's markers, over the fake disk of ./testing.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeDisk } from './testing';

const state = vi.hoisted(() => ({ disk: null as FakeDisk | null }));

vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return { ...real, call: vi.fn((tool: string, args?: Record<string, unknown>) => state.disk!.call(tool, args)), subscribe: vi.fn(() => () => {}) };
});

const { fakeDisk } = await import('./testing');
const { FileIndex, listAllFiles } = await import('./fileIndex.svelte');
const { SearchStore, groupByFile, matchPreview } = await import('./searchStore.svelte');
const { ExplorerStore, gitMarks } = await import('./explorerStore.svelte');
const { markersFromPatch, placeMarkers } = await import('./gitGutter');
const { toasts } = await import('../../stores/toasts.svelte');
const { Text, ChangeSet } = await import('@codemirror/state');

const ROOT = '/work/proj';
let disk: FakeDisk;
const calls = (tool: string) => disk.calls.filter((c) => c.tool === tool);

beforeEach(() => {
  disk = fakeDisk(ROOT, {
    'a.txt': 'alpha\nbeta\n',
    'src/main.go': 'package main\n\nfunc main() {}\n',
    'src/lib/util.go': 'package lib\n// Alpha helper\n',
    'docs/guide.md': '# Guide\nalpha and ALPHA\n',
  });
  state.disk = disk;
  toasts.clear();
});

describe('the quick-open file list', () => {
  it('reads every file with one recursive call when it fits', async () => {
    const idx = new FileIndex(ROOT);
    await idx.ensure();
    expect([...idx.paths].sort()).toEqual(['a.txt', 'docs/guide.md', 'src/lib/util.go', 'src/main.go']);
    expect(calls('workspace_list_files')).toHaveLength(1);
    expect(calls('workspace_list_files')[0].args).toEqual({ cwd: ROOT, recursive: true, maxEntries: 20000 });
    // Cached until a hint marks it stale.
    await idx.ensure();
    expect(calls('workspace_list_files')).toHaveLength(1);
    idx.markStale();
    disk.writeExternally('new.ts', '');
    await idx.ensure();
    expect(idx.paths).toContain('new.ts');
    expect(idx.version).toBe(2);
  });

  it('reads a folder too big for one call folder by folder, and finds every file', async () => {
    for (let i = 0; i < 15_000; i++) disk.files.set(`big/a/f${i}.txt`, { content: '', mtimeMs: 1 });
    for (let i = 0; i < 15_000; i++) disk.files.set(`big/b/g${i}.txt`, { content: '', mtimeMs: 1 });
    disk.files.set('big/top.txt', { content: '', mtimeMs: 1 });
    const { files, incomplete } = await listAllFiles(ROOT);
    expect(files).toHaveLength(30_005);
    expect(new Set(files).size).toBe(files.length);
    expect(incomplete).toBe(false);
    const args = calls('workspace_list_files').map((c) => `${String(c.args.path ?? '')}|${c.args.recursive ? 'r' : ''}`);
    expect(args.sort()).toEqual(['big/a|r', 'big/b|r', 'big|', 'big|r', 'docs|r', 'src|r', '|', '|r']);
  });

  it('says when a single folder holds more entries than a call returns', async () => {
    for (let i = 0; i < 20_001; i++) disk.files.set(`flat/f${i}.txt`, { content: '', mtimeMs: 1 });
    const { files, incomplete } = await listAllFiles(ROOT);
    expect(incomplete).toBe(true);
    expect(files.length).toBe(20_000 + 4);
  });
});

describe('the search panel', () => {
  it('groups matches by file in the order found, and marks the match in its line', async () => {
    const s = new SearchStore(ROOT);
    s.query = 'alpha';
    await s.run();
    expect(calls('workspace_search')[0].args).toEqual({ cwd: ROOT, query: 'alpha', isRegex: false, caseSensitive: false, maxResults: 2000 });
    expect(s.results.map((g) => [g.path, g.matches.length])).toEqual([['a.txt', 1], ['docs/guide.md', 1], ['src/lib/util.go', 1]]);
    expect(s.total).toBe(3);
    expect(s.searched).toBe('alpha');
    expect(matchPreview(s.results[2].matches[0])).toEqual({ before: '// ', match: 'Alpha', after: ' helper' });
  });

  it('sends the switches and the glob, and says why a search failed', async () => {
    const s = new SearchStore(ROOT);
    s.query = 'a(';
    s.isRegex = true;
    s.caseSensitive = true;
    s.glob = ' *.go ';
    disk.failNext.set('workspace_search', { ok: false, error: { code: 'VALIDATION_ERROR', message: 'query: not a valid regular expression' } });
    await s.run();
    expect(calls('workspace_search')[0].args).toMatchObject({ isRegex: true, caseSensitive: true, glob: '*.go' });
    expect(s.error).toBe('Query: not a valid regular expression');
    expect(s.results).toEqual([]);
  });

  it('an empty query clears; folding a file is remembered until the next search', async () => {
    const s = new SearchStore(ROOT);
    s.query = 'alpha';
    await s.run();
    s.toggleCollapsed('a.txt');
    expect(s.collapsed.has('a.txt')).toBe(true);
    s.query = '  ';
    await s.run();
    expect(s.results).toEqual([]);
    expect(calls('workspace_search')).toHaveLength(1);
  });

  it('groupByFile keeps the order', () => {
    const m = (path: string, line: number) => ({ path, line, column: 1, endColumn: 2, text: 'x' });
    expect(groupByFile([m('b', 1), m('a', 1), m('b', 2)]).map((g) => [g.path, g.matches.map((x) => x.line)])).toEqual([['b', [1, 2]], ['a', [1]]]);
  });
});

describe('the explorer', () => {
  it('reads folders lazily, folders first, and flattens what is open', async () => {
    const e = new ExplorerStore(ROOT);
    await e.start();
    expect(e.rows.map((r) => r.path)).toEqual(['docs', 'src', 'a.txt']);
    await e.toggle('src');
    expect(e.rows.map((r) => `${'  '.repeat(r.depth)}${r.name}`)).toEqual(['docs', 'src', '  lib', '  main.go', 'a.txt']);
    expect(calls('workspace_list_files').map((c) => c.args.path ?? '')).toEqual(['', 'src']);
    await e.toggle('src');
    expect(e.rows.map((r) => r.path)).toEqual(['docs', 'src', 'a.txt']);
    // Opening it again needs no read.
    await e.toggle('src');
    expect(calls('workspace_list_files')).toHaveLength(2);
  });

  it('reveals a deep path', async () => {
    const e = new ExplorerStore(ROOT);
    await e.start();
    await e.reveal('src/lib/util.go');
    expect(e.rows.map((r) => r.path)).toEqual(['docs', 'src', 'src/lib', 'src/lib/util.go', 'src/main.go', 'a.txt']);
    expect(e.selected).toBe('src/lib/util.go');
  });

  it('creates, renames and deletes through the file tools (delete with confirm)', async () => {
    const e = new ExplorerStore(ROOT);
    await e.start();
    expect(await e.createFile('src/new.ts')).toBe('src/new.ts');
    expect(disk.files.get('src/new.ts')?.content).toBe('');
    expect(calls('workspace_write_file')[0].args).toEqual({ cwd: ROOT, path: 'src/new.ts', content: '', createDirs: true });
    expect(await e.createFile('a.txt')).toBeNull();
    expect(toasts.list.at(-1)?.text).toMatch(/exists already/);
    expect(await e.createFolder('pkg/sub')).toBe('pkg/sub');
    expect(calls('workspace_make_dir')[0].args).toEqual({ cwd: ROOT, path: 'pkg/sub' });
    expect(await e.rename('src/new.ts', 'src/renamed.ts')).toBe('src/renamed.ts');
    expect(disk.files.has('src/renamed.ts')).toBe(true);
    expect(e.rows.map((r) => r.path)).toContain('src/renamed.ts');
    expect(await e.remove('src/renamed.ts')).toBe(true);
    expect(calls('workspace_delete_path')[0].args).toEqual({ cwd: ROOT, path: 'src/renamed.ts', confirm: true });
    expect(e.rows.map((r) => r.path)).not.toContain('src/renamed.ts');
  });

  it('re-reads the open folders a change touches', async () => {
    const e = new ExplorerStore(ROOT);
    await e.start();
    await e.toggle('src');
    disk.writeExternally('src/added.go', '');
    const before = calls('workspace_list_files').length;
    await e.onFilesChanged(['src/added.go', 'elsewhere/x/y.go']);
    expect(calls('workspace_list_files').slice(before).map((c) => c.args.path)).toEqual(['src']);
    expect(e.rows.map((r) => r.path)).toContain('src/added.go');
  });

  it('colours changed paths and their folders from git_status, inside a repository subfolder too', () => {
    const files = [
      { path: 'proj/src/main.go', status: 'modified' },
      { path: 'proj/new/', status: 'untracked' },
      { path: 'proj/old.txt', status: 'deleted' },
      { path: 'other/x.go', status: 'modified' },
    ];
    const m = gitMarks(files, 'proj');
    expect(Object.fromEntries(m)).toEqual({ 'src/main.go': 'modified', src: 'modified', new: 'untracked', 'old.txt': 'deleted' });
  });
});

describe('the git gutter', () => {
  it('marks added, modified and deleted lines of a patch', () => {
    const patch = [
      'diff --git a/f b/f', '--- a/f', '+++ b/f',
      '@@ -1,6 +1,7 @@',
      ' one',
      '-two',
      '+TWO',
      ' three',
      '+three and a half',
      ' four',
      '-five',
      ' six',
    ].join('\n');
    expect(markersFromPatch(patch)).toEqual([
      { line: 2, kind: 'modified' },
      { line: 4, kind: 'added' },
      { line: 5, kind: 'deleted' },
    ]);
  });

  it('places markers computed on the disk text in the edited buffer', () => {
    const disk = Text.of(['a', 'b', 'c']);
    const edit = ChangeSet.of({ from: 0, insert: 'new\n' }, disk.length);
    expect(placeMarkers([{ line: 2, kind: 'added' }, { line: 0, kind: 'deleted' }], disk, edit)).toEqual([
      { pos: 6, kind: 'added' },
      { pos: 4, kind: 'deleted' },
    ]);
  });
});
