import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeDisk } from './testing';

const state = vi.hoisted(() => ({ disk: null as FakeDisk | null }));

vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return { ...real, call: vi.fn((tool: string, args?: Record<string, unknown>) => state.disk!.call(tool, args)), subscribe: vi.fn(() => () => {}) };
});

const { fakeDisk } = await import('./testing');
const { EditorStore, minimalChange, revealRange, lintDiagnostics, OpenFile } = await import('./editorStore.svelte');
const { toasts } = await import('../../stores/toasts.svelte');
const { Text, ChangeSet } = await import('@codemirror/state');

const ROOT = '/work/proj';
let disk: FakeDisk;
let store: InstanceType<typeof EditorStore>;

/** Types into the file's buffer as the view would (a transaction, then edited()). */
function type(f: InstanceType<typeof OpenFile>, at: number, text: string) {
  const tr = f.state!.update({ changes: { from: at, insert: text } });
  f.state = tr.state;
  store.edited(f, tr.changes);
}

const calls = (tool: string) => disk.calls.filter((c) => c.tool === tool);

beforeEach(() => {
  disk = fakeDisk(ROOT, { 'src/a.go': 'package a\n\nfunc A() {}\n', 'README.md': '# hi\n' });
  state.disk = disk;
  toasts.clear();
  EditorStore.hinted.clear();
  store = new EditorStore({ id: 'wtab_1', cwd: ROOT, openFilePaths: [], activeFilePath: null }, { persistDelayMs: 0, diagnosticsDelayMs: 0 });
});
afterEach(() => store.dispose());

describe('EditorStore: open, edit, save', () => {
  it('opens a file clean, turns dirty on an edit and clean again when the edit is undone by hand', async () => {
    const f = await store.open('src/a.go');
    expect(f.kind).toBe('text');
    expect(f.text()).toBe('package a\n\nfunc A() {}\n');
    expect(f.dirty).toBe(false);
    expect(store.activePath).toBe('src/a.go');
    type(f, 0, 'x');
    expect(f.dirty).toBe(true);
    const tr = f.state!.update({ changes: { from: 0, to: 1 } });
    f.state = tr.state;
    store.edited(f, tr.changes);
    expect(f.dirty).toBe(false);
  });

  it('saves with the mtime it read, and the disk and the base follow', async () => {
    const f = await store.open('src/a.go');
    const mtime = f.mtimeMs;
    type(f, 0, '// x\n');
    expect(await store.save(f)).toBe(true);
    const w = calls('workspace_write_file')[0].args;
    expect(w).toEqual({ cwd: ROOT, path: 'src/a.go', content: '// x\npackage a\n\nfunc A() {}\n', expectedMtimeMs: mtime });
    expect(disk.files.get('src/a.go')!.content).toBe('// x\npackage a\n\nfunc A() {}\n');
    expect(f.dirty).toBe(false);
    expect(f.mtimeMs).toBe(disk.files.get('src/a.go')!.mtimeMs);
  });

  it('never overwrites a change made on disk since the read: the save is refused and the conflict bar shows', async () => {
    const f = await store.open('src/a.go');
    type(f, 0, 'mine ');
    disk.writeExternally('src/a.go', 'theirs\n');
    expect(await store.save(f)).toBe(false);
    expect(disk.files.get('src/a.go')!.content).toBe('theirs\n');
    expect(f.conflict).toEqual({ diskText: 'theirs\n', diskMtimeMs: disk.files.get('src/a.go')!.mtimeMs, deleted: false });
    expect(f.dirty).toBe(true);
  });

  it('shows placeholders for binary, huge and missing files', async () => {
    disk.files.set('img.png', { content: '\0PNG', mtimeMs: 1, binary: true });
    disk.files.set('big.log', { content: 'x'.repeat(2 * 1024 * 1024 + 10), mtimeMs: 1 });
    const bin = await store.open('img.png');
    expect(bin.kind).toBe('binary');
    expect(bin.readOnly).toBe(true);
    const big = await store.open('big.log');
    expect(big.kind).toBe('huge');
    expect(big.readOnly).toBe(true);
    expect(big.state!.readOnly).toBe(true);
    expect(big.state!.doc.length).toBe(2 * 1024 * 1024);
    expect(await store.save(big)).toBe(false);
    const gone = await store.open('nope.txt');
    expect(gone.kind).toBe('missing');
  });

  it('saves as another path: the buffer moves there, the old file stays, an existing target asks first', async () => {
    const f = await store.open('src/a.go');
    type(f, 0, '// copy\n');
    expect(await store.saveAs(f, 'README.md')).toBe('exists');
    expect(await store.saveAs(f, 'src/b.go')).toBe('saved');
    expect(disk.files.get('src/b.go')!.content).toBe('// copy\npackage a\n\nfunc A() {}\n');
    expect(disk.files.get('src/a.go')!.content).toBe('package a\n\nfunc A() {}\n');
    expect(f.path).toBe('src/b.go');
    expect(store.activePath).toBe('src/b.go');
    expect(f.dirty).toBe(false);
    expect(calls('workspace_write_file')[0].args.createDirs).toBe(true);
  });

  it('saves all: every dirty file, clean ones untouched, one under a conflict bar left alone', async () => {
    disk.files.set('c.txt', { content: 'c\n', mtimeMs: ++disk.clock });
    const a = await store.open('src/a.go');
    const r = await store.open('README.md');
    const c = await store.open('c.txt');
    type(a, 0, 'A');
    type(r, 0, 'R');
    disk.writeExternally('README.md', 'theirs\n');
    await store.onFilesChanged(ROOT, ['README.md']);
    expect(r.conflict?.deleted).toBe(false);
    const before = calls('workspace_write_file').length;
    expect(await store.saveAll()).toEqual({ saved: ['src/a.go'], skipped: ['README.md'] });
    expect(calls('workspace_write_file').length - before).toBe(1);
    expect(disk.files.get('src/a.go')!.content).toBe('Apackage a\n\nfunc A() {}\n');
    expect(disk.files.get('README.md')!.content).toBe('theirs\n');
    expect(disk.files.get('c.txt')!.content).toBe('c\n');
    expect([a.dirty, r.dirty, c.dirty]).toEqual([false, true, false]);
  });

  it('closes a dirty file only when told to discard, and shows the neighbour', async () => {
    await store.open('README.md');
    const f = await store.open('src/a.go');
    type(f, 0, 'x');
    expect(store.close('src/a.go')).toBe(false);
    expect(store.close('src/a.go', true)).toBe(true);
    expect(store.files.map((x) => x.path)).toEqual(['README.md']);
    expect(store.activePath).toBe('README.md');
  });
});

describe('EditorStore: reconciliation with the disk', () => {
  it('reloads a clean buffer at once, as one minimal edit that keeps the cursor', async () => {
    const f = await store.open('src/a.go');
    // The cursor on "func".
    f.state = f.state!.update({ selection: { anchor: 11 } }).state;
    disk.writeExternally('src/a.go', 'package a\n\nfunc A() {}\n\nfunc B() {}\n');
    await store.onFilesChanged(ROOT, ['src/a.go']);
    expect(f.text()).toBe('package a\n\nfunc A() {}\n\nfunc B() {}\n');
    expect(f.dirty).toBe(false);
    expect(f.state!.selection.main.head).toBe(11);
    expect(f.mtimeMs).toBe(disk.files.get('src/a.go')!.mtimeMs);
  });

  it('ignores hints for other files, other roots, and its own writes coming back', async () => {
    const f = await store.open('src/a.go');
    type(f, 0, 'x');
    await store.save(f);
    const reads = calls('workspace_read_file').length;
    await store.onFilesChanged(ROOT, ['src/a.go']); // the echo of the save
    expect(f.conflict).toBeNull();
    expect(f.dirty).toBe(false);
    await store.onFilesChanged(ROOT, ['other.go']);
    await store.onFilesChanged('/elsewhere', ['src/a.go']);
    expect(calls('workspace_read_file').length).toBe(reads + 1);
  });

  it('checks every open file when the hint says "many"', async () => {
    const a = await store.open('src/a.go');
    const r = await store.open('README.md');
    disk.writeExternally('src/a.go', 'A\n');
    disk.writeExternally('README.md', 'R\n');
    await store.onFilesChanged(ROOT, []);
    expect(a.text()).toBe('A\n');
    expect(r.text()).toBe('R\n');
  });

  it('puts a conflict over a dirty buffer; keep mine makes the next save overwrite the disk copy', async () => {
    const f = await store.open('src/a.go');
    type(f, 0, 'mine ');
    disk.writeExternally('src/a.go', 'theirs\n');
    await store.onFilesChanged(ROOT, ['src/a.go']);
    expect(f.conflict?.diskText).toBe('theirs\n');
    expect(f.text()).toBe('mine package a\n\nfunc A() {}\n');
    store.keepMine(f);
    expect(f.conflict).toBeNull();
    expect(f.dirty).toBe(true);
    expect(await store.save(f)).toBe(true);
    expect(disk.files.get('src/a.go')!.content).toBe('mine package a\n\nfunc A() {}\n');
  });

  it('take theirs drops the edits and loads the disk copy', async () => {
    const f = await store.open('src/a.go');
    type(f, 0, 'mine ');
    disk.writeExternally('src/a.go', 'theirs\n');
    await store.onFilesChanged(ROOT, ['src/a.go']);
    store.takeTheirs(f);
    expect(f.text()).toBe('theirs\n');
    expect(f.dirty).toBe(false);
    expect(f.conflict).toBeNull();
    // A later save is checked against their mtime.
    type(f, 0, '!');
    expect(await store.save(f)).toBe(true);
    expect(disk.files.get('src/a.go')!.content).toBe('!theirs\n');
  });

  it('clears the conflict when the disk ends up equal to the buffer', async () => {
    const f = await store.open('src/a.go');
    type(f, 0, 'x');
    disk.writeExternally('src/a.go', f.text());
    await store.onFilesChanged(ROOT, ['src/a.go']);
    expect(f.conflict).toBeNull();
    expect(f.dirty).toBe(false);
  });

  it('a file deleted on disk: a clean buffer says so too, and keep mine saves it again without an mtime', async () => {
    const f = await store.open('src/a.go');
    type(f, 0, 'x');
    disk.files.delete('src/a.go');
    await store.onFilesChanged(ROOT, ['src/a.go']);
    expect(f.conflict?.deleted).toBe(true);
    store.keepMine(f);
    expect(await store.save(f)).toBe(true);
    expect(calls('workspace_write_file').at(-1)!.args.expectedMtimeMs).toBeUndefined();
    expect(disk.files.get('src/a.go')!.content).toBe('xpackage a\n\nfunc A() {}\n');
  });

  it('a change reported while a save is in flight is looked at after the save', async () => {
    const f = await store.open('src/a.go');
    type(f, 0, 'x');
    const saving = store.save(f);
    const hint = store.onFilesChanged(ROOT, ['src/a.go']);
    await Promise.all([saving, hint]);
    expect(f.conflict).toBeNull();
    expect(f.dirty).toBe(false);
    expect(disk.files.get('src/a.go')!.content).toBe('xpackage a\n\nfunc A() {}\n');
  });

  it('follows renames and deletions made from the explorer', async () => {
    const a = await store.open('src/a.go');
    await store.open('README.md');
    store.renamed('src', 'lib');
    expect(a.path).toBe('lib/a.go');
    type(a, 0, 'x');
    store.deleted('lib');
    store.deleted('README.md');
    expect(store.files.map((f) => f.path)).toEqual(['lib/a.go']);
    expect(a.conflict?.deleted).toBe(true);
  });
});

describe('EditorStore: persistence of the open files', () => {
  it('writes the open files and the focused one to the tab, and restores them (reading only the focused file)', async () => {
    await store.open('src/a.go');
    await store.open('README.md');
    store.activate('src/a.go');
    await new Promise((r) => setTimeout(r, 5));
    const last = calls('set_workspace_tab_file').at(-1)!.args;
    expect(last).toEqual({ tabId: 'wtab_1', activeFilePath: 'src/a.go', openFilePaths: ['src/a.go', 'README.md'] });

    disk.calls = [];
    const again = new EditorStore({ id: 'wtab_1', cwd: ROOT, openFilePaths: ['src/a.go', 'README.md'], activeFilePath: 'README.md' }, { persistDelayMs: 0 });
    await again.restore();
    expect(again.files.map((f) => f.path)).toEqual(['src/a.go', 'README.md']);
    expect(again.activePath).toBe('README.md');
    expect(calls('workspace_read_file').map((c) => c.args.path)).toEqual(['README.md']);
    again.activate('src/a.go');
    await new Promise((r) => setTimeout(r, 5));
    expect(again.file('src/a.go')!.kind).toBe('text');
    again.dispose();
  });

  it('persists a close', async () => {
    await store.open('src/a.go');
    await store.open('README.md');
    store.close('README.md');
    await new Promise((r) => setTimeout(r, 5));
    expect(calls('set_workspace_tab_file').at(-1)!.args).toEqual({ tabId: 'wtab_1', activeFilePath: 'src/a.go', openFilePaths: ['src/a.go'] });
  });
});

describe('EditorStore: diagnostics and the git gutter', () => {
  it('shows the diagnostics of the file and an install hint once per language', async () => {
    disk.diagnostics.set('src/a.go', { unsupported: false, language: 'go', diagnostics: [{ path: 'src/a.go', line: 3, column: 6, endLine: 3, endColumn: 7, severity: 'error', message: 'undefined: x' }] });
    const f = await store.open('src/a.go');
    await store.refreshDiagnostics(f);
    expect(f.diagnostics.map((d) => d.message)).toEqual(['undefined: x']);

    disk.diagnostics.set('README.md', { unsupported: true, language: 'markdown', installHint: 'install marksman', diagnostics: [] });
    const r = await store.open('README.md');
    await store.refreshDiagnostics(r);
    expect(store.installHint).toBe('install marksman');
    store.installHint = '';
    await store.refreshDiagnostics(r);
    expect(store.installHint).toBe('');
  });

  it('reads the file patch against HEAD for the gutter', async () => {
    disk.patches.set('src/a.go', '@@ -1,3 +1,4 @@\n package a\n+// new\n \n func A() {}\n');
    const f = await store.open('src/a.go');
    await store.refreshGitMarkers(f);
    expect(calls('git_diff').at(-1)!.args).toEqual({ cwd: ROOT, includePatches: true, scope: 'all', path: 'src/a.go', onlyPath: true });
  });
});

describe('helpers', () => {
  it.each([
    ['abc', 'abc', null],
    ['abc', 'abXc', { from: 2, to: 2, insert: 'X' }],
    ['hello world', 'hello', { from: 5, to: 11, insert: '' }],
    ['aaa', 'aaaa', { from: 3, to: 3, insert: 'a' }],
    ['x😀y', 'x😁y', { from: 1, to: 3, insert: '😁' }],
  ])('minimalChange(%j, %j)', (a, b, want) => {
    const ch = minimalChange(a, b);
    expect(ch).toEqual(want);
    if (ch) expect(a.slice(0, ch.from) + ch.insert + a.slice(ch.to)).toBe(b);
  });

  it('reveals lines and columns clamped to the document', () => {
    const doc = Text.of(['one', 'two', 'three']);
    expect(revealRange(doc, { line: 2, column: 2 })).toEqual({ anchor: 5, head: 5 });
    expect(revealRange(doc, { line: 3, column: 1, endColumn: 6 })).toEqual({ anchor: 8, head: 13 });
    expect(revealRange(doc, { line: 99, column: 99 })).toEqual({ anchor: 13, head: 13 });
  });

  it('places diagnostics computed on the disk text in the edited buffer', () => {
    const disk = Text.of(['ab', 'cd']);
    const edit = ChangeSet.of({ from: 0, insert: 'XX\n' }, disk.length);
    const out = lintDiagnostics([{ path: 'f', line: 2, column: 1, endLine: 2, endColumn: 3, severity: 'warning', message: 'm' }], disk, edit, disk.length + 3);
    expect(out).toEqual([{ from: 6, to: 8, severity: 'warning', message: 'm', source: undefined }]);
  });
});
