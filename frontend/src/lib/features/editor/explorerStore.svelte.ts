// The explorer beside the editor: the tab's folder as a tree, read lazily
// (workspace_list_files, not recursive, one call per folder opened), shown
// as a flat list of visible rows that the view virtualises. Files changed
// against HEAD are coloured from git_status of the folder; a folder takes
// the colour of what it holds. New file, new folder, rename and delete are
// the file tools; a files_changed hint re-reads the open folders it touches.
import { call } from '../../bridge';
import { errorText, resultError, toasts } from '../../stores/toasts.svelte';
import { dirName, fileTools, relativeTo, type FileEntry } from './fileTools';

/** One visible row of the tree. */
export interface TreeRow {
  path: string;
  name: string;
  type: 'file' | 'dir';
  depth: number;
  expanded: boolean;
}

/** How a path differs from HEAD, as the explorer colours it. */
export type GitMark = 'modified' | 'added' | 'untracked' | 'deleted' | 'conflicted' | 'renamed';

/** What git_status lists per file (the parts read here). */
interface StatusFile {
  path: string;
  status: string;
}

/** Entries of a non-recursive listing per folder. */
export const FOLDER_ENTRIES = 5_000;

/** The mark a folder shows for its changed descendants (the most telling one). */
const RANK: Record<GitMark, number> = { conflicted: 5, modified: 4, renamed: 3, added: 2, untracked: 1, deleted: 0 };

/** Git marks of the folder's paths (relative to `prefix`, the folder inside the repository) and of their parent folders. */
export function gitMarks(files: readonly StatusFile[], prefix: string): Map<string, GitMark> {
  const out = new Map<string, GitMark>();
  const put = (p: string, m: GitMark) => {
    const had = out.get(p);
    if (!had || RANK[m] > RANK[had]) out.set(p, m);
  };
  for (const f of files) {
    const repoPath = f.path.replace(/\/$/, '');
    const rel = prefix ? relativeTo(prefix, repoPath) : repoPath;
    if (rel === null || rel === '') continue;
    const mark: GitMark = (['modified', 'added', 'untracked', 'deleted', 'conflicted', 'renamed'] as const).find((m) => m === f.status) ?? (f.status === 'copied' ? 'added' : 'modified');
    put(rel, mark);
    // Folders above it take a mark too (a deleted file's folder reads as modified).
    for (let d = dirName(rel); d !== ''; d = dirName(d)) put(d, mark === 'deleted' ? 'modified' : mark);
  }
  return out;
}

/** The explorer's state for one editor tab. */
export class ExplorerStore {
  /** The entries of each folder read so far ('' is the tab's folder). */
  children = $state.raw(new Map<string, FileEntry[]>());
  expanded = $state.raw(new Set<string>(['']));
  loading = $state.raw(new Set<string>());
  /** Folders whose listing was cut at FOLDER_ENTRIES. */
  cut = $state.raw(new Set<string>());
  selected = $state<string | null>(null);
  error = $state('');
  marks = $state.raw(new Map<string, GitMark>());
  /** The folder's canonical path, as the list tool reported it ('' until the first read). */
  canonical = $state('');

  /** The visible rows, top to bottom. */
  rows = $derived<TreeRow[]>(this.flatten());

  constructor(readonly cwd: string) {}

  private flatten(): TreeRow[] {
    const out: TreeRow[] = [];
    const walk = (dir: string, depth: number) => {
      for (const e of this.children.get(dir) ?? []) {
        const expanded = e.type === 'dir' && this.expanded.has(e.path);
        out.push({ path: e.path, name: e.name, type: e.type, depth, expanded });
        if (expanded) walk(e.path, depth + 1);
      }
    };
    walk('', 0);
    return out;
  }

  /** Reads the top folder and the git marks. */
  async start(): Promise<void> {
    await Promise.all([this.readDir(''), this.readGit()]);
  }

  /** Reads (or re-reads) one folder's entries. */
  async readDir(dir: string): Promise<void> {
    this.loading = new Set(this.loading).add(dir);
    try {
      const r = await fileTools.list(this.cwd, { path: dir || undefined, recursive: false, maxEntries: FOLDER_ENTRIES });
      if (!r.ok || !r.content) {
        const msg = resultError(r, 'list the folder');
        if (dir === '') this.error = msg;
        else this.forget(dir); // it went away
        return;
      }
      if (r.content.cwd) this.canonical = r.content.cwd;
      const next = new Map(this.children);
      next.set(dir, r.content.entries ?? []);
      this.children = next;
      const cut = new Set(this.cut);
      if (r.content.truncated) cut.add(dir);
      else cut.delete(dir);
      this.cut = cut;
      if (dir === '') this.error = '';
    } catch (err) {
      if (dir === '') this.error = errorText(err);
    } finally {
      const l = new Set(this.loading);
      l.delete(dir);
      this.loading = l;
    }
  }

  private forget(dir: string): void {
    const next = new Map(this.children);
    for (const k of next.keys()) if (k === dir || k.startsWith(dir + '/')) next.delete(k);
    this.children = next;
    const ex = new Set(this.expanded);
    for (const k of ex) if (k === dir || k.startsWith(dir + '/')) ex.delete(k);
    this.expanded = ex;
  }

  /** Opens or closes a folder (reading it the first time). */
  async toggle(dir: string): Promise<void> {
    const ex = new Set(this.expanded);
    if (ex.has(dir)) {
      ex.delete(dir);
      this.expanded = ex;
      return;
    }
    ex.add(dir);
    this.expanded = ex;
    if (!this.children.has(dir)) await this.readDir(dir);
  }

  /** Opens the folders above a path and selects it. */
  async reveal(path: string): Promise<void> {
    const dirs: string[] = [];
    for (let d = dirName(path); d !== ''; d = dirName(d)) dirs.unshift(d);
    const ex = new Set(this.expanded);
    for (const d of dirs) ex.add(d);
    this.expanded = ex;
    for (const d of dirs) if (!this.children.has(d)) await this.readDir(d);
    this.selected = path;
  }

  /** A files_changed hint for the folder (relative paths; empty: many): re-reads the open folders it touches. */
  async onFilesChanged(paths: readonly string[] | null): Promise<void> {
    const dirs = new Set<string>();
    if (!paths || paths.length === 0) {
      for (const d of this.children.keys()) dirs.add(d);
    } else {
      for (const p of paths) {
        const d = dirName(p);
        if (this.children.has(d)) dirs.add(d);
        // A changed folder that is open: its own listing too.
        if (this.children.has(p)) dirs.add(p);
      }
    }
    await Promise.all([...dirs].filter((d) => d === '' || this.expanded.has(d) || this.children.has(d)).map((d) => this.readDir(d)));
  }

  // ---- Git colours (git_status) ----

  /** Reads git_status of the folder and colours the paths that differ from HEAD. */
  async readGit(): Promise<void> {
    try {
      const r = await call<{ isRepo: boolean; root: string | null; files: StatusFile[] | null }>('git_status', { cwd: this.cwd });
      if (!r.ok || !r.content?.isRepo || !r.content.root) {
        this.marks = new Map();
        return;
      }
      // The folder inside the repository ('' at its top).
      const prefix = relativeTo(r.content.root, this.cwd.replace(/\/+$/, '')) ?? '';
      this.marks = gitMarks(r.content.files ?? [], prefix);
    } catch {
      // no colours this time; the next git_changed tries again
    }
  }

  // ---- Changes (the file tools) ----

  /** Creates an empty file (and its folders); resolves its path, or null after a toast. */
  async createFile(path: string): Promise<string | null> {
    const probe = await fileTools.read(this.cwd, path).catch(() => null);
    if (probe?.ok) {
      toasts.push(`${path} exists already.`);
      return null;
    }
    const r = await this.act(() => fileTools.write(this.cwd, path, '', { createDirs: true }));
    if (!r) return null;
    await this.readDir(dirName(path));
    await this.reveal(path);
    return path;
  }

  /** Creates a folder (and its parents); resolves its path, or null after a toast. */
  async createFolder(path: string): Promise<string | null> {
    const r = await this.act(() => fileTools.makeDir(this.cwd, path));
    if (!r) return null;
    await this.readDir(dirName(path));
    await this.reveal(path);
    const ex = new Set(this.expanded);
    ex.add(path);
    this.expanded = ex;
    await this.readDir(path);
    return path;
  }

  /** Renames a path; resolves the new path, or null after a toast. */
  async rename(path: string, newPath: string): Promise<string | null> {
    const r = await this.act(() => fileTools.rename(this.cwd, path, newPath));
    if (!r) return null;
    if (this.expanded.has(path)) {
      this.forget(path);
      const ex = new Set(this.expanded);
      ex.add(newPath);
      this.expanded = ex;
    }
    await Promise.all([this.readDir(dirName(path)), dirName(newPath) !== dirName(path) ? this.readDir(dirName(newPath)) : null]);
    if (this.expanded.has(newPath)) await this.readDir(newPath);
    this.selected = newPath;
    return newPath;
  }

  /** Deletes a path (to the trash under user data; workspace_undo brings it back); resolves whether it went. */
  async remove(path: string): Promise<boolean> {
    const r = await this.act(() => fileTools.remove(this.cwd, path));
    if (!r) return false;
    this.forget(path);
    if (this.selected === path) this.selected = null;
    await this.readDir(dirName(path));
    return true;
  }

  private async act<T>(run: () => Promise<{ ok: boolean; content?: T; error?: { code: string; message: string } }>): Promise<T | null> {
    try {
      const r = await run();
      if (r.ok) return (r.content ?? ({} as T)) as T;
      if (r.error?.code !== 'CANCELLED') toasts.push(resultError(r));
    } catch (err) {
      toasts.push(errorText(err));
    }
    return null;
  }

  /** Where a new entry goes when the selection is a path: inside a selected folder, else beside the selected file. */
  parentForNew(): string {
    const s = this.selected;
    if (!s) return '';
    const isDir = this.rows.find((r) => r.path === s)?.type === 'dir';
    return isDir ? s : dirName(s);
  }
}
