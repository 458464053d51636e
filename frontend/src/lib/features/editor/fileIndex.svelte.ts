// The list of every file of an editor tab's folder, for quick open: read with
// workspace_list_files (recursive, 20,000 entries a call). A folder too big
// for one call is read folder by folder: its own entries non-recursively,
// each subfolder recursively, splitting again where a subfolder is still
// too big — so a 50,000-file repository costs a handful of calls. The list
// is cached and marked stale by files_changed hints for the folder; the
// next quick open re-reads it in the background and shows the old list
// meanwhile.
import { errorText, resultError } from '../../stores/toasts.svelte';
import { fileTools, type FileEntry } from './fileTools';

/** Entries per workspace_list_files call (the tool's maximum). */
export const PAGE_ENTRIES = 20_000;
/** At most this many files are kept (a bound on memory and on the matcher). */
export const MAX_FILES = 250_000;
/** At most this many list calls per read. */
export const MAX_CALLS = 500;
/** List calls in flight at once while reading folder by folder. */
export const CONCURRENT_CALLS = 4;

/** The file list of one folder. */
export class FileIndex {
  /** Relative paths of the files (no folders). */
  paths = $state.raw<string[]>([]);
  loading = $state(false);
  /** True when the list is known to miss files (a limit was hit). */
  incomplete = $state(false);
  error = $state('');
  /** Bumped each time a new list arrives. */
  version = $state(0);

  private stale = true;
  private reading: Promise<void> | null = null;
  private ac: AbortController | null = null;

  constructor(readonly cwd: string) {}

  /** Reads the list when it is stale (or never read); resolves when it is fresh. */
  ensure(): Promise<void> {
    if (!this.stale) return this.reading ?? Promise.resolve();
    this.stale = false;
    this.reading = this.read().finally(() => (this.reading = null));
    return this.reading;
  }

  /** The folder changed: the next ensure() reads again. */
  markStale(): void {
    this.stale = true;
  }

  dispose(): void {
    this.ac?.abort();
  }

  private async read(): Promise<void> {
    this.ac?.abort();
    const ac = new AbortController();
    this.ac = ac;
    this.loading = true;
    try {
      const { files, incomplete } = await listAllFiles(this.cwd, ac.signal);
      if (ac.signal.aborted) return;
      this.paths = files;
      this.incomplete = incomplete;
      this.error = '';
      this.version++;
    } catch (err) {
      if (!ac.signal.aborted) {
        this.error = errorText(err);
        this.stale = true;
      }
    } finally {
      if (this.ac === ac) this.loading = false;
    }
  }
}

/** Every file under cwd (relative paths), folder by folder where one call is not enough. */
export async function listAllFiles(cwd: string, signal?: AbortSignal): Promise<{ files: string[]; incomplete: boolean }> {
  const files: string[] = [];
  let incomplete = false;
  let calls = 0;
  const list = async (path: string, recursive: boolean) => {
    calls++;
    const r = await fileTools.list(cwd, { path, recursive, maxEntries: PAGE_ENTRIES }, signal);
    if (!r.ok || !r.content) throw new Error(resultError(r, 'list the files'));
    return { entries: r.content.entries ?? [], truncated: r.content.truncated };
  };
  const addFiles = (entries: FileEntry[]) => {
    for (const e of entries) {
      if (e.type !== 'file') continue;
      if (files.length >= MAX_FILES) {
        incomplete = true;
        return;
      }
      files.push(e.path);
    }
  };
  // Folders are read four at a time.
  const queue: string[] = [''];
  const readOne = async (dir: string) => {
    const whole = await list(dir, true);
    if (!whole.truncated) {
      addFiles(whole.entries);
      return;
    }
    // Too big for one call: this folder's own entries, then each subfolder.
    const own = await list(dir, false);
    if (own.truncated) incomplete = true;
    addFiles(own.entries);
    for (const e of own.entries) if (e.type === 'dir') queue.push(e.path);
  };
  const running = new Set<Promise<void>>();
  while (queue.length > 0 || running.size > 0) {
    if (signal?.aborted) break;
    if (queue.length > 0 && running.size < CONCURRENT_CALLS) {
      if (calls >= MAX_CALLS || files.length >= MAX_FILES) {
        incomplete = true;
        queue.length = 0;
        continue;
      }
      const p: Promise<void> = readOne(queue.shift()!).finally(() => running.delete(p));
      running.add(p);
      continue;
    }
    await Promise.race(running);
  }
  return { files, incomplete };
}
