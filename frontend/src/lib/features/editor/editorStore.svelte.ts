// The state of one editor tab: its open files, each a CodeMirror state kept
// while the file is open (so undo history and selection survive switching),
// and the one truth about each file's disk copy — the text and mtime last
// read or written. Every disk access is a file tool call.
//
// A file's life, as a state machine:
//
//   loading ──read ok──► text (clean) ◄──────────── save ok / reload / take theirs
//      │                   │  ▲  edit / undo back to the disk text
//      │                   ▼  │
//      │                 dirty ──save refused ("changed on disk") or──► conflict
//      │                        a change on disk (files_changed)          │
//      ├─binary──► binary (placeholder)            keep mine: the disk copy │
//      ├─over 2 MB► huge (first 2 MB, read-only)   becomes the base, the    │
//      └─error───► error / missing                 next save overwrites it ─┘
//
// A change on disk to a clean buffer reloads it at once (one minimal edit,
// so the cursor and the scroll position stay where they were); a change that
// leaves the disk text equal to the buffer only moves the base. A save sends
// expectedMtimeMs, so a change that lands between the last read and the
// save is never overwritten silently. The tab's open files and focused file
// persist in state.json through set_workspace_tab_file.
import { ChangeSet, EditorSelection, EditorState, Text, type Extension, type TransactionSpec } from '@codemirror/state';
import { setDiagnostics, type Diagnostic as LintDiagnostic } from '@codemirror/lint';
import { call, type ToolResult } from '../../bridge';
import { errorText, toasts } from '../../stores/toasts.svelte';
import { humanizeResult } from '../../errors';
import {
  BINARY_FILE,
  CHANGED_ON_DISK,
  NOT_FOUND,
  fileTools,
  relativeTo,
  type FileDiagnostic,
  type ReadFileResult,
} from './fileTools';
import { markersFromPatch, placeMarkers, setGitMarkers, type LineMarker } from './gitGutter';

/** What a file's buffer holds. */
export type BufferKind = 'loading' | 'text' | 'huge' | 'binary' | 'missing' | 'error';

/** A place in a file to show: 1-based line and column (UTF-16 units), optionally the end of a range to select. */
export interface Reveal {
  line: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
}

/** The disk's side of a conflict: the file changed on disk while the buffer had unsaved edits. */
export interface Conflict {
  /** The text on disk now ('' when deleted). */
  diskText: string;
  diskMtimeMs: number;
  /** The file was deleted on disk. */
  deleted: boolean;
}

/** Who applies a transaction to a file's state: its view when it is shown, else the state itself. */
export type Applier = (spec: TransactionSpec) => void;

/** One open file of an editor tab. */
export class OpenFile {
  /** Relative to the tab's folder. */
  path = $state('');
  kind = $state<BufferKind>('loading');
  error = $state('');
  dirty = $state(false);
  saving = $state(false);
  conflict = $state.raw<Conflict | null>(null);
  /** The file's size on disk (bytes). */
  bytes = $state(0);
  /** Where to move the cursor once the file is shown (the view takes it). */
  reveal = $state.raw<Reveal | null>(null);
  /** Diagnostics of the file as the language server last reported them. */
  diagnostics = $state.raw<FileDiagnostic[]>([]);
  /** Bumped when the state was replaced (a load): the view takes the new one. */
  generation = $state(0);

  readOnly = $derived(this.kind !== 'text');

  /** The CodeMirror state (the view's, while the file is shown). */
  state: EditorState | null = null;
  /** The text on disk as last read or written. */
  savedDoc: Text = Text.empty;
  /** The edits made since savedDoc (to place markers computed on the disk text). */
  sinceSaved: ChangeSet | null = null;
  /** The disk copy's mtime as last read or written (0: unknown). */
  mtimeMs = 0;
  /** The canonical absolute path (from the last read). */
  absPath = '';
  /** Set while the view shows the file: transactions go through it. */
  applier: Applier | null = null;
  /** A change on disk reported while a save was in flight: looked at once the save is done. */
  recheckAfterSave = false;

  constructor(path: string) {
    this.path = path;
  }

  /** The buffer's text. */
  text(): string {
    return this.state?.doc.toString() ?? '';
  }

  /** Applies a transaction to the file's state (through its view when shown). */
  apply(spec: TransactionSpec): void {
    if (!this.state) return;
    if (this.applier) this.applier(spec);
    else this.state = this.state.update(spec).state;
  }
}

/** The tab the store belongs to (a workspace tab of kind editor). */
export interface EditorTabInfo {
  id: string;
  cwd: string;
  openFilePaths: string[] | null;
  activeFilePath: string | null;
}

/** What the store needs from around it (tests replace it; the view passes its CodeMirror extensions). */
export interface EditorStoreOptions {
  /** The extensions of every file's state (language, keys, theme…), per path. */
  extensions?: (path: string) => Extension;
  /** How long persisting the open files waits for more changes (ms). */
  persistDelayMs?: number;
  /** How long diagnostics wait after a save or open (ms). */
  diagnosticsDelayMs?: number;
}

/** The smallest single edit that turns a into b (common prefix and suffix kept). */
export function minimalChange(a: string, b: string): { from: number; to: number; insert: string } | null {
  if (a === b) return null;
  const max = Math.min(a.length, b.length);
  let pre = 0;
  while (pre < max && a.charCodeAt(pre) === b.charCodeAt(pre)) pre++;
  // Do not split a surrogate pair.
  if (pre > 0 && pre < a.length && isLowSurrogate(a.charCodeAt(pre))) pre--;
  let suf = 0;
  while (suf < max - pre && a.charCodeAt(a.length - 1 - suf) === b.charCodeAt(b.length - 1 - suf)) suf++;
  if (suf > 0 && isLowSurrogate(a.charCodeAt(a.length - suf))) suf--;
  return { from: pre, to: a.length - suf, insert: b.slice(pre, b.length - suf) };
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** The selection a Reveal asks for in doc (lines and columns clamped to the document). */
export function revealRange(doc: Text, at: Reveal): { anchor: number; head: number } {
  const pos = (line: number, column = 1) => {
    const l = doc.line(Math.min(Math.max(1, line), doc.lines));
    return l.from + Math.min(Math.max(0, column - 1), l.length);
  };
  const anchor = pos(at.line, at.column);
  if (at.endColumn === undefined && at.endLine === undefined) return { anchor, head: anchor };
  const head = pos(at.endLine ?? at.line, at.endColumn ?? at.column);
  return { anchor, head };
}

/** Diagnostics as @codemirror/lint's, on the current document (computed on disk text, moved through the edits since). */
export function lintDiagnostics(diags: readonly FileDiagnostic[], disk: Text, sinceSaved: ChangeSet | null, docLength: number): LintDiagnostic[] {
  const at = (line: number, column: number) => {
    const l = disk.line(Math.min(Math.max(1, line), disk.lines));
    let p = l.from + Math.min(Math.max(0, column - 1), l.length);
    if (sinceSaved) p = sinceSaved.mapPos(p, 1);
    return Math.min(p, docLength);
  };
  return diags.map((d) => {
    const from = at(d.line, d.column);
    const to = Math.max(from, at(d.endLine || d.line, d.endColumn || d.column));
    return {
      from,
      to,
      severity: d.severity === 'hint' ? 'hint' : d.severity === 'info' ? 'info' : d.severity,
      message: d.message,
      source: d.source,
    };
  });
}

/** The editor state of one editor tab; see the file comment. */
export class EditorStore {
  /** The open files, in tab order. */
  files = $state<OpenFile[]>([]);
  activePath = $state<string | null>(null);
  active = $derived<OpenFile | undefined>(this.files.find((f) => f.path === this.activePath));
  /** The git repository's root around the folder ('' when none or not known yet). */
  gitRoot = $state('');

  private persistTimer: ReturnType<typeof setTimeout> | undefined;
  private diagTimers = new Map<OpenFile, ReturnType<typeof setTimeout>>();
  private readonly extensions: (path: string) => Extension;
  private readonly persistDelayMs: number;
  private readonly diagnosticsDelayMs: number;
  private disposed = false;

  constructor(
    readonly tab: EditorTabInfo,
    opts: EditorStoreOptions = {},
  ) {
    this.extensions = opts.extensions ?? (() => []);
    this.persistDelayMs = opts.persistDelayMs ?? 300;
    this.diagnosticsDelayMs = opts.diagnosticsDelayMs ?? 400;
  }

  get cwd(): string {
    return this.tab.cwd;
  }

  /** Re-opens the files the tab had (the focused one is read now, the others when shown). */
  restore(): Promise<void> {
    const paths = (this.tab.openFilePaths ?? []).filter((p, i, all) => p && all.indexOf(p) === i);
    this.files = paths.map((p) => new OpenFile(p));
    const active = this.tab.activeFilePath && paths.includes(this.tab.activeFilePath) ? this.tab.activeFilePath : (paths[0] ?? null);
    this.activePath = active;
    const f = this.active;
    return f ? this.load(f) : Promise.resolve();
  }

  /** Stops timers; pending persistence is written at once. */
  dispose(): void {
    if (this.persistTimer !== undefined) {
      clearTimeout(this.persistTimer);
      this.persistTimer = undefined;
      void this.persistNow();
    }
    for (const t of this.diagTimers.values()) clearTimeout(t);
    this.diagTimers.clear();
    this.disposed = true;
  }

  file(path: string): OpenFile | undefined {
    return this.files.find((f) => f.path === path);
  }

  /**
   * Opens a file (or shows it when open already), optionally at a place;
   * resolves once it is loaded.
   */
  async open(path: string, at?: Reveal): Promise<OpenFile> {
    let f = this.file(path);
    if (!f) {
      f = new OpenFile(path);
      const i = this.files.findIndex((x) => x.path === this.activePath);
      this.files = i < 0 ? [...this.files, f] : [...this.files.slice(0, i + 1), f, ...this.files.slice(i + 1)];
    }
    this.activePath = path;
    if (at) f.reveal = at;
    this.schedulePersist();
    if (f.kind === 'loading' && !f.state) await this.load(f);
    return f;
  }

  /** Shows an open file (reading it when it was restored but not read yet). */
  activate(path: string): void {
    const f = this.file(path);
    if (!f) return;
    this.activePath = path;
    this.schedulePersist();
    if (f.kind === 'loading' && !f.state) void this.load(f);
  }

  /**
   * Closes a file. A file with unsaved edits closes only when `discard` says
   * so (the view asks the person first). Resolves whether it closed.
   */
  close(path: string, discard = false): boolean {
    const f = this.file(path);
    if (!f) return false;
    if (f.dirty && !discard) return false;
    const i = this.files.indexOf(f);
    this.files = this.files.filter((x) => x !== f);
    f.applier = null;
    clearTimeout(this.diagTimers.get(f));
    this.diagTimers.delete(f);
    if (this.activePath === path) {
      const next = this.files[Math.min(i, this.files.length - 1)];
      this.activePath = next?.path ?? null;
      if (next && next.kind === 'loading' && !next.state) void this.load(next);
    }
    this.schedulePersist();
    return true;
  }

  /** Reads a file from disk into its buffer (replacing the buffer). */
  async load(f: OpenFile): Promise<void> {
    f.kind = 'loading';
    f.error = '';
    let r: ToolResult<ReadFileResult>;
    try {
      r = await fileTools.read(this.cwd, f.path);
    } catch (err) {
      f.kind = 'error';
      f.error = errorText(err);
      return;
    }
    if (!r.ok || !r.content) {
      const msg = r.error?.message ?? 'workspace_read_file failed';
      f.kind = BINARY_FILE.test(msg) ? 'binary' : NOT_FOUND.test(msg) ? 'missing' : 'error';
      f.error = humanizeResult(r, 'read the file');
      return;
    }
    const c = r.content;
    f.absPath = c.path;
    f.bytes = c.bytes;
    f.mtimeMs = c.mtimeMs;
    f.savedDoc = Text.of(c.content.split(/\r\n?|\n/));
    f.sinceSaved = null;
    f.conflict = null;
    f.dirty = false;
    f.state = EditorState.create({
      doc: f.savedDoc,
      extensions: [this.extensions(f.path), EditorState.readOnly.of(c.truncated)],
    });
    f.kind = c.truncated ? 'huge' : 'text';
    f.generation++;
    if (!c.truncated) {
      this.scheduleDiagnostics(f);
      void this.refreshGitMarkers(f);
    }
  }

  /** Called by the view after each transaction on a file: keeps dirty and the edits since the save. */
  edited(f: OpenFile, changes: ChangeSet | null): void {
    if (!f.state) return;
    if (changes && !changes.empty) f.sinceSaved = f.sinceSaved ? f.sinceSaved.compose(changes) : changes;
    f.dirty = !f.state.doc.eq(f.savedDoc);
  }

  /**
   * Saves a file with workspace_write_file, refusing to overwrite a change
   * made on disk since the last read (the conflict bar then shows). Resolves
   * whether the file was saved.
   */
  async save(f: OpenFile | undefined = this.active): Promise<boolean> {
    if (!f || !f.state || f.kind !== 'text' || f.saving) return false;
    const doc = f.state.doc;
    const content = doc.toString();
    f.saving = true;
    let r;
    try {
      r = await fileTools.write(this.cwd, f.path, content, f.conflict?.deleted || f.mtimeMs === 0 ? {} : { expectedMtimeMs: f.mtimeMs });
    } catch (err) {
      f.saving = false;
      toasts.push(errorText(err));
      return false;
    }
    f.saving = false;
    if (!r.ok || !r.content) {
      const msg = r.error?.message ?? 'workspace_write_file failed';
      if (CHANGED_ON_DISK.test(msg)) {
        await this.recheck(f);
        if (!f.conflict) toasts.push(`${f.path} changed on disk; save again to overwrite it.`, 'info');
      } else {
        toasts.push(humanizeResult(r, 'save the file'));
      }
      return false;
    }
    f.mtimeMs = r.content.mtimeMs;
    f.bytes = r.content.bytes;
    if (r.content.path) f.absPath = r.content.path;
    this.rebase(f, doc);
    f.conflict = null;
    if (f.recheckAfterSave) {
      f.recheckAfterSave = false;
      await this.recheck(f);
    }
    this.scheduleDiagnostics(f);
    void this.refreshGitMarkers(f);
    return true;
  }

  /**
   * Saves every open file with unsaved edits (Ctrl+Shift+S), one after the
   * other. A file under a conflict bar is left for the person to decide
   * (unless it was deleted on disk: saving creates it again). Resolves the
   * paths saved and those that were not.
   */
  async saveAll(): Promise<{ saved: string[]; skipped: string[] }> {
    const saved: string[] = [];
    const skipped: string[] = [];
    for (const f of [...this.files]) {
      if (!f.dirty) continue;
      if (f.kind !== 'text' || (f.conflict && !f.conflict.deleted)) {
        skipped.push(f.path);
        continue;
      }
      if (await this.save(f)) saved.push(f.path);
      else skipped.push(f.path);
    }
    return { saved, skipped };
  }

  /**
   * Saves a file's buffer under another path (the tab shows it there
   * afterwards). Resolves 'exists' without writing when the target exists
   * and overwrite is not set.
   */
  async saveAs(f: OpenFile, newPath: string, overwrite = false): Promise<'saved' | 'exists' | 'failed'> {
    if (!f.state) return 'failed';
    if (newPath === f.path) return (await this.save(f)) ? 'saved' : 'failed';
    if (!overwrite) {
      const probe = await fileTools.read(this.cwd, newPath).catch(() => null);
      if (probe?.ok || (probe && !probe.ok && BINARY_FILE.test(probe.error?.message ?? ''))) return 'exists';
    }
    const doc = f.state.doc;
    const r = await fileTools.write(this.cwd, newPath, doc.toString(), { createDirs: true }).catch((err: unknown) => {
      toasts.push(errorText(err));
      return null;
    });
    if (!r) return 'failed';
    if (!r.ok || !r.content) {
      toasts.push(humanizeResult(r, 'save the file'));
      return 'failed';
    }
    // The buffer moves to the new path; an open copy of the target goes.
    const other = this.file(newPath);
    if (other && other !== f) this.files = this.files.filter((x) => x !== other);
    const wasActive = this.activePath === f.path;
    f.path = newPath;
    f.absPath = r.content.path;
    f.mtimeMs = r.content.mtimeMs;
    f.conflict = null;
    this.rebase(f, doc);
    if (wasActive) this.activePath = newPath;
    this.schedulePersist();
    this.scheduleDiagnostics(f);
    void this.refreshGitMarkers(f);
    return 'saved';
  }

  /** The disk copy is now `doc`: the base of dirty, markers and diagnostics. */
  private rebase(f: OpenFile, doc: Text): void {
    f.savedDoc = doc;
    // Edits typed while the save was in flight stay unsaved.
    f.sinceSaved = null;
    if (f.state && !f.state.doc.eq(doc)) {
      const ch = minimalChange(doc.toString(), f.state.doc.toString());
      f.sinceSaved = ch ? ChangeSet.of(ch, doc.length) : null;
    }
    f.dirty = !!f.state && !f.state.doc.eq(f.savedDoc);
  }

  /**
   * A files_changed hint: the open files it names (absolute paths under
   * root; none named means "many") are compared with the disk.
   */
  async onFilesChanged(root: string, paths: readonly string[] | null): Promise<void> {
    const r = root.replace(/\/+$/, '');
    const named = paths && paths.length > 0 ? new Set(paths.map((p) => `${r}/${p}`)) : null;
    const cwd = this.cwd.replace(/\/+$/, '');
    const hit = this.files.filter((f) => {
      if (f.kind === 'loading' && !f.state) return false; // not read yet: read when shown
      const abs = [f.absPath, `${cwd}/${f.path}`].filter(Boolean);
      return abs.some((a) => (named ? named.has(a) : relativeTo(r, a) !== null));
    });
    await Promise.all(hit.map((f) => this.recheck(f)));
  }

  /**
   * Compares an open file with its disk copy: reloads a clean buffer, shows
   * the conflict bar over a dirty one, notes a deletion.
   */
  async recheck(f: OpenFile): Promise<void> {
    if (f.saving) {
      f.recheckAfterSave = true;
      return;
    }
    if (!f.state) {
      // A placeholder (binary, missing, error): try to read it again.
      if (f.kind !== 'loading') await this.load(f);
      return;
    }
    let r: ToolResult<ReadFileResult>;
    try {
      r = await fileTools.read(this.cwd, f.path);
    } catch {
      return; // the window is going away or the bridge failed: the next hint tries again
    }
    if (!this.files.includes(f) || f.saving) {
      if (f.saving) f.recheckAfterSave = true;
      return;
    }
    if (!r.ok || !r.content) {
      const msg = r.error?.message ?? '';
      if (NOT_FOUND.test(msg)) {
        f.conflict = { diskText: '', diskMtimeMs: 0, deleted: true };
      } else if (BINARY_FILE.test(msg)) {
        f.kind = 'binary';
        f.error = humanizeResult(r, 'read the file');
        f.state = null;
        f.generation++;
      }
      return;
    }
    const c = r.content;
    if (c.truncated !== (f.kind === 'huge')) {
      // It crossed the read cap: read it afresh.
      await this.load(f);
      return;
    }
    const disk = c.content;
    const saved = f.savedDoc.toString();
    f.absPath = c.path;
    if (disk === saved) {
      // Touched, or our own write coming back: only the mtime moves.
      f.mtimeMs = c.mtimeMs;
      if (f.conflict?.deleted) f.conflict = null;
      return;
    }
    const mine = f.state.doc.toString();
    if (disk === mine) {
      // The disk caught up with the buffer.
      f.mtimeMs = c.mtimeMs;
      f.conflict = null;
      this.rebase(f, f.state.doc);
      return;
    }
    if (!f.dirty) {
      this.replaceWithDisk(f, disk, c.mtimeMs);
      return;
    }
    f.conflict = { diskText: disk, diskMtimeMs: c.mtimeMs, deleted: false };
  }

  /** Loads the disk text into the buffer as one minimal edit (cursor and scroll stay). */
  private replaceWithDisk(f: OpenFile, disk: string, mtimeMs: number): void {
    if (!f.state) return;
    const ch = minimalChange(f.state.doc.toString(), disk);
    if (ch) f.apply({ changes: ch, userEvent: 'reload' });
    f.mtimeMs = mtimeMs;
    f.conflict = null;
    this.rebase(f, f.state.doc);
    this.scheduleDiagnostics(f);
    void this.refreshGitMarkers(f);
  }

  /** Conflict: keep the buffer; the disk copy becomes the base, so the next save overwrites it. */
  keepMine(f: OpenFile): void {
    const c = f.conflict;
    if (!c || !f.state) return;
    if (c.deleted) {
      f.mtimeMs = 0; // the next save creates it again
      f.savedDoc = Text.empty;
      f.sinceSaved = null;
      f.dirty = true;
    } else {
      f.mtimeMs = c.diskMtimeMs;
      const disk = Text.of(c.diskText.split(/\r\n?|\n/));
      f.savedDoc = disk;
      const ch = minimalChange(c.diskText, f.state.doc.toString());
      f.sinceSaved = ch ? ChangeSet.of(ch, disk.length) : null;
      f.dirty = !f.state.doc.eq(disk);
    }
    f.conflict = null;
  }

  /** Conflict: drop the buffer's edits and take the disk copy (a deleted file closes). */
  takeTheirs(f: OpenFile): void {
    const c = f.conflict;
    if (!c) return;
    if (c.deleted) {
      f.dirty = false;
      this.close(f.path, true);
      return;
    }
    this.replaceWithDisk(f, c.diskText, c.diskMtimeMs);
  }

  /** Open files under a renamed path follow it. */
  renamed(oldPath: string, newPath: string): void {
    for (const f of this.files) {
      if (f.path === oldPath || f.path.startsWith(oldPath + '/')) {
        const next = newPath + f.path.slice(oldPath.length);
        if (this.activePath === f.path) this.activePath = next;
        f.path = next;
        f.absPath = '';
      }
    }
    this.schedulePersist();
  }

  /** Open files under a deleted path: clean ones close, edited ones keep their buffer and say so. */
  deleted(path: string): void {
    for (const f of [...this.files]) {
      if (f.path !== path && !f.path.startsWith(path + '/')) continue;
      if (f.dirty) f.conflict = { diskText: '', diskMtimeMs: 0, deleted: true };
      else this.close(f.path, true);
    }
  }

  // ---- Persistence (set_workspace_tab_file) ----

  private schedulePersist(): void {
    if (this.disposed) return;
    clearTimeout(this.persistTimer);
    this.persistTimer = setTimeout(() => {
      this.persistTimer = undefined;
      void this.persistNow();
    }, this.persistDelayMs);
  }

  /** Writes the open files and the focused one to the tab's record now. */
  async persistNow(): Promise<void> {
    const openFilePaths = this.files.map((f) => f.path);
    try {
      const r = await call('set_workspace_tab_file', { tabId: this.tab.id, activeFilePath: this.activePath, openFilePaths });
      if (!r.ok && r.error?.code !== 'CANCELLED') console.warn('editor: set_workspace_tab_file', r.error);
    } catch (err) {
      console.warn('editor: set_workspace_tab_file', errorText(err));
    }
  }

  // ---- Diagnostics (get_diagnostics) ----

  /** Languages whose missing server was pointed out already (once per window). */
  static hinted = new Set<string>();
  /** The install hint to show (once per language), '' when none. */
  installHint = $state('');

  private scheduleDiagnostics(f: OpenFile): void {
    if (this.disposed) return;
    clearTimeout(this.diagTimers.get(f));
    this.diagTimers.set(
      f,
      setTimeout(() => {
        this.diagTimers.delete(f);
        void this.refreshDiagnostics(f);
      }, this.diagnosticsDelayMs),
    );
  }

  /** Asks the language server of the file's language for its diagnostics and shows them. */
  async refreshDiagnostics(f: OpenFile): Promise<void> {
    if (f.kind !== 'text' || !this.files.includes(f)) return;
    const path = f.path;
    let r;
    try {
      r = await fileTools.diagnostics(this.cwd, path);
    } catch {
      return;
    }
    if (!r.ok || !r.content || f.path !== path || !f.state) return;
    const c = r.content;
    if (c.unsupported) {
      f.diagnostics = [];
      if (c.installHint && !EditorStore.hinted.has(c.language)) {
        EditorStore.hinted.add(c.language);
        this.installHint = c.installHint;
      }
    } else {
      f.diagnostics = (c.diagnostics ?? []).filter((d) => !d.path || d.path === path || d.path === f.absPath || d.path.endsWith('/' + path));
    }
    const lint = lintDiagnostics(f.diagnostics, f.savedDoc, f.sinceSaved, f.state.doc.length);
    f.apply(setDiagnostics(f.state, lint));
  }

  // ---- Git gutter (git_diff) ----

  private gitRootRead: Promise<string> | null = null;

  /** The repository root around the tab's folder ('' outside a repository). */
  private repoRoot(): Promise<string> {
    this.gitRootRead ??= (async () => {
      try {
        const r = await call<{ isRepo: boolean; root: string | null }>('git_status', { cwd: this.cwd });
        this.gitRoot = r.ok && r.content?.isRepo ? (r.content.root ?? '') : '';
      } catch {
        this.gitRoot = '';
      }
      return this.gitRoot;
    })();
    return this.gitRootRead;
  }

  /** The lines of f changed against HEAD, for its gutter. */
  async refreshGitMarkers(f: OpenFile): Promise<void> {
    if (f.kind !== 'text' || !f.state) return;
    const root = await this.repoRoot();
    if (!root) return;
    const rel = (f.absPath && relativeTo(root, f.absPath)) ?? relativeTo(root, `${this.cwd.replace(/\/+$/, '')}/${f.path}`);
    if (rel === null || rel === '') return;
    let markers: LineMarker[] = [];
    try {
      const r = await call<{ isRepo: boolean; files: { path: string; status: string; diff?: string }[] }>('git_diff', {
        cwd: this.cwd, includePatches: true, scope: 'all', path: rel, onlyPath: true,
      });
      if (!r.ok || !r.content?.isRepo) return;
      const entry = r.content.files.find((x) => x.path === rel);
      if (entry?.status === 'untracked' || entry?.status === 'added') {
        markers = Array.from({ length: f.savedDoc.lines }, (_, i) => ({ line: i + 1, kind: 'added' as const }));
      } else if (entry?.diff) {
        markers = markersFromPatch(entry.diff);
      }
    } catch {
      return;
    }
    if (!f.state) return;
    f.apply({ effects: setGitMarkers.of(placeMarkers(markers, f.savedDoc, f.sinceSaved)) });
  }

  /** A git_changed hint: the shown file's markers are read again. */
  onGitChanged(): void {
    const f = this.active;
    if (f) void this.refreshGitMarkers(f);
  }

  /** Moves the cursor to a place in the current buffer and selects the range (the view scrolls there). */
  static selectionFor(f: OpenFile, at: Reveal): EditorSelection | null {
    if (!f.state) return null;
    const r = revealRange(f.state.doc, at);
    return EditorSelection.single(r.anchor, r.head);
  }
}
