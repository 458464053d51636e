// A stand-in for the Go side of the file tools, for the editor's store tests
// (the bridge module is mocked with it, as other store tests do): a folder
// of text files in memory with mtimes, the file tools over it with the
// plan's shapes and errors, set_workspace_tab_file, get_diagnostics and the
// two git reads the gutter makes. Tests only.
import type { ToolResult } from '../../bridge';

/** One file of the fake disk. */
export interface FakeFile {
  content: string;
  mtimeMs: number;
  binary?: boolean;
}

/** The fake disk and what was called. */
export interface FakeDisk {
  root: string;
  files: Map<string, FakeFile>;
  /** Empty folders (folders holding files need no entry). */
  dirs: Set<string>;
  calls: { tool: string; args: Record<string, unknown> }[];
  clock: number;
  /** get_diagnostics answers (by relative path). */
  diagnostics: Map<string, unknown>;
  /** What git_status lists as changed (repository-relative). */
  gitFiles: { path: string; status: string }[];
  /** git_diff patches (by repository-relative path). */
  patches: Map<string, string>;
  /** A tool → a result that replaces the next answer of that tool. */
  failNext: Map<string, ToolResult>;
  /** Writes a file as another program would (a new mtime). */
  writeExternally(path: string, content: string): void;
  call(tool: string, args?: Record<string, unknown>): Promise<ToolResult>;
}

const ok = (content: unknown): ToolResult => ({ ok: true, content: structuredClone(content) });
const fail = (code: string, message: string): ToolResult => ({ ok: false, error: { code, message } }) as ToolResult;

/** A fake disk rooted at root with the given files. */
export function fakeDisk(root: string, initial: Record<string, string> = {}): FakeDisk {
  const disk: FakeDisk = {
    root,
    files: new Map(),
    dirs: new Set(),
    calls: [],
    clock: 1_000,
    diagnostics: new Map(),
    patches: new Map(),
    gitFiles: [],
    failNext: new Map(),
    writeExternally(path, content) {
      disk.files.set(path, { content, mtimeMs: (disk.clock += 10) });
    },
    async call(tool, args = {}) {
      disk.calls.push({ tool, args: structuredClone(args) });
      await Promise.resolve();
      const injected = disk.failNext.get(tool);
      if (injected) {
        disk.failNext.delete(tool);
        return injected;
      }
      const path = String(args.path ?? '');
      switch (tool) {
        case 'workspace_read_file': {
          const f = disk.files.get(path);
          if (!f) return fail('TOOL_FAILED', `${path}: no such file or directory`);
          if (f.binary) return fail('TOOL_FAILED', `${path} is a binary file`);
          const cap = 2 * 1024 * 1024;
          return ok({ path: `${root}/${path}`, relPath: path, content: f.content.slice(0, cap), encoding: 'utf8', bytes: f.content.length, truncated: f.content.length > cap, mtimeMs: f.mtimeMs, mode: 0o644 });
        }
        case 'workspace_write_file': {
          const prev = disk.files.get(path);
          if (args.expectedMtimeMs !== undefined && prev && prev.mtimeMs !== args.expectedMtimeMs) {
            return fail('TOOL_FAILED', `${path} changed on disk since you read it`);
          }
          const content = String(args.content);
          disk.files.set(path, { content, mtimeMs: (disk.clock += 10) });
          return ok({ path: `${root}/${path}`, relPath: path, bytes: content.length, created: !prev, mtimeMs: disk.clock, undo: { path, previousContent: prev?.content ?? null, newContent: content, timestamp: disk.clock } });
        }
        case 'workspace_list_files': {
          const under = path ? path + '/' : '';
          const max = Number(args.maxEntries ?? 5000);
          const dirs = new Set<string>([...disk.dirs].filter((d) => d.startsWith(under)));
          for (const f of disk.files.keys()) {
            for (let i = f.indexOf('/'); i >= 0; i = f.indexOf('/', i + 1)) {
              const d = f.slice(0, i);
              if (d.startsWith(under)) dirs.add(d);
            }
          }
          const depthOk = (p: string) => args.recursive || !p.slice(under.length).includes('/');
          const entries = [
            ...[...dirs].filter(depthOk).sort().map((d) => ({ path: d, name: d.slice(d.lastIndexOf('/') + 1), type: 'dir' })),
            ...[...disk.files.keys()].filter((f) => f.startsWith(under) && depthOk(f)).sort().map((f) => ({ path: f, name: f.slice(f.lastIndexOf('/') + 1), type: 'file', size: disk.files.get(f)!.content.length })),
          ];
          return ok({ cwd: root, root, entries: entries.slice(0, max), truncated: entries.length > max });
        }
        case 'workspace_search': {
          const q = String(args.query);
          const re = args.isRegex ? new RegExp(q, args.caseSensitive ? 'g' : 'gi') : null;
          const matches: unknown[] = [];
          for (const [p, f] of [...disk.files.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
            if (f.binary) continue;
            f.content.split('\n').forEach((text, i) => {
              const hay = args.caseSensitive || re ? text : text.toLowerCase();
              const col = re ? text.search(re) : hay.indexOf(q.toLowerCase());
              if (col >= 0) matches.push({ path: p, line: i + 1, column: col + 1, endColumn: col + 1 + (re ? (text.match(re)?.[0].length ?? 0) : q.length), text });
            });
          }
          return ok({ matches, truncated: false, filesSearched: disk.files.size });
        }
        case 'workspace_rename_path': {
          const to = String(args.newPath);
          for (const [p, f] of [...disk.files.entries()]) {
            if (p === path || p.startsWith(path + '/')) {
              disk.files.delete(p);
              disk.files.set(to + p.slice(path.length), f);
            }
          }
          return ok({ path, newPath: to, type: disk.files.has(to) ? 'file' : 'dir' });
        }
        case 'workspace_delete_path': {
          if (args.confirm !== true) return fail('VALIDATION_ERROR', 'confirm must be true');
          for (const p of [...disk.files.keys()]) if (p === path || p.startsWith(path + '/')) disk.files.delete(p);
          disk.dirs.delete(path);
          return ok({ path, type: 'file', trashedTo: '/trash/x' });
        }
        case 'workspace_make_dir':
          disk.dirs.add(path);
          return ok({ path, created: true });
        case 'set_workspace_tab_file':
          return ok({ id: args.tabId });
        case 'get_diagnostics':
          return ok(disk.diagnostics.get(path) ?? { unsupported: false, language: 'go', diagnostics: [] });
        case 'git_status':
          return ok({ isRepo: true, root, files: disk.gitFiles });
        case 'git_diff': {
          const patch = disk.patches.get(path);
          return ok({ isRepo: true, root, scope: 'all', files: patch ? [{ path, status: 'modified', additions: 1, deletions: 0, binary: false, diff: patch }] : [] });
        }
        default:
          return fail('UNKNOWN_TOOL', tool);
      }
    },
  };
  for (const [p, c] of Object.entries(initial)) disk.files.set(p, { content: c, mtimeMs: (disk.clock += 10) });
  return disk;
}
