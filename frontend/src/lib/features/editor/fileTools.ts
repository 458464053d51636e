// The workspace file tools as the editor calls them (backend/tools/filetools:
// workspace_read_file … workspace_make_dir, get_diagnostics). The shapes are
// those of the tools' Go types; they are written here by hand so that the
// editor states what it relies on, and each call names its content type
// (call<T>), which the bridge accepts for any tool name.
//
// Text is UTF-8; lines and columns are 1-based and count UTF-16 code units,
// as JavaScript strings and CodeMirror do.

import { call, type ToolResult } from '../../bridge';

/** workspace_read_file's content. */
export interface ReadFileResult {
  /** The absolute canonical path. */
  path: string;
  relPath: string;
  content: string;
  encoding: 'utf8';
  /** The file's size on disk. */
  bytes: number;
  /** True when the file is over the 2 MB read cap: content holds its first 2 MB. */
  truncated: boolean;
  mtimeMs: number;
  mode?: number;
}

/** What an edit through the tools recorded for workspace_undo. */
export interface UndoEntry {
  path: string;
  previousContent: string | null;
  newContent: string | null;
  timestamp: number;
  op?: 'write' | 'patch' | 'rename' | 'delete';
  previousPath?: string;
  tooLarge?: boolean;
}

/** workspace_write_file's content. */
export interface WriteFileResult {
  path: string;
  relPath: string;
  bytes: number;
  created: boolean;
  mtimeMs: number;
  undo: UndoEntry;
}

/** One entry of workspace_list_files (path: posix, relative to the call's cwd). */
export interface FileEntry {
  path: string;
  name: string;
  type: 'file' | 'dir';
  size?: number;
  mtimeMs?: number;
}

/** workspace_list_files's content. */
export interface ListFilesResult {
  /** The canonical cwd. */
  cwd: string;
  root: string;
  entries: FileEntry[] | null;
  truncated: boolean;
}

/** One match of workspace_search (line, column and endColumn 1-based, UTF-16 units). */
export interface SearchMatch {
  path: string;
  line: number;
  column: number;
  endColumn: number;
  /** The line (cut at 500 characters). */
  text: string;
}

/** workspace_search's content. */
export interface SearchResult {
  matches: SearchMatch[] | null;
  truncated: boolean;
  filesSearched: number;
}

export type DiagnosticSeverity = 'error' | 'warning' | 'info' | 'hint';

/** One diagnostic of get_diagnostics (1-based lines and columns, UTF-16 units). */
export interface FileDiagnostic {
  path: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: DiagnosticSeverity;
  message: string;
  source?: string;
  code?: string | number;
}

/** get_diagnostics's content. */
export interface DiagnosticsResult {
  unsupported: boolean;
  language: string;
  server?: string;
  installHint?: string;
  diagnostics: FileDiagnostic[] | null;
}

/** workspace_rename_path's content. */
export interface RenameResult {
  path: string;
  newPath: string;
  type: 'file' | 'dir';
}

/** workspace_delete_path's content (the path went to a trash folder under user data). */
export interface DeleteResult {
  path: string;
  type: 'file' | 'dir';
  trashedTo: string;
}

/** workspace_make_dir's content. */
export interface MakeDirResult {
  path: string;
  created: boolean;
}

/** The message workspace_write_file fails with when expectedMtimeMs no longer holds. */
export const CHANGED_ON_DISK = /changed on disk/i;
/** The message workspace_read_file fails with for a binary file. */
export const BINARY_FILE = /binary/i;
/** Messages of a path that does not exist. */
export const NOT_FOUND = /no such file|not found|does not exist/i;

/** The 2 MB read cap of workspace_read_file. */
export const READ_CAP_BYTES = 2 * 1024 * 1024;

/** The file tools, as one object so that tests and benchmarks can count or replace calls. */
export const fileTools = {
  read(cwd: string, path: string): Promise<ToolResult<ReadFileResult>> {
    return call<ReadFileResult>('workspace_read_file', { cwd, path });
  },
  write(cwd: string, path: string, content: string, opts: { expectedMtimeMs?: number; createDirs?: boolean } = {}): Promise<ToolResult<WriteFileResult>> {
    const args: Record<string, unknown> = { cwd, path, content };
    if (opts.expectedMtimeMs !== undefined) args.expectedMtimeMs = opts.expectedMtimeMs;
    if (opts.createDirs) args.createDirs = true;
    return call<WriteFileResult>('workspace_write_file', args);
  },
  list(cwd: string, opts: { path?: string; recursive?: boolean; maxEntries?: number } = {}, signal?: AbortSignal): Promise<ToolResult<ListFilesResult>> {
    const args: Record<string, unknown> = { cwd };
    if (opts.path) args.path = opts.path;
    if (opts.recursive) args.recursive = true;
    if (opts.maxEntries) args.maxEntries = opts.maxEntries;
    return call<ListFilesResult>('workspace_list_files', args, { signal });
  },
  search(
    cwd: string,
    q: { query: string; isRegex?: boolean; caseSensitive?: boolean; glob?: string; maxResults?: number },
    signal?: AbortSignal,
  ): Promise<ToolResult<SearchResult>> {
    const args: Record<string, unknown> = { cwd, query: q.query, isRegex: !!q.isRegex, caseSensitive: !!q.caseSensitive };
    if (q.glob) args.glob = q.glob;
    if (q.maxResults) args.maxResults = q.maxResults;
    return call<SearchResult>('workspace_search', args, { signal });
  },
  rename(cwd: string, path: string, newPath: string): Promise<ToolResult<RenameResult>> {
    return call<RenameResult>('workspace_rename_path', { cwd, path, newPath });
  },
  remove(cwd: string, path: string): Promise<ToolResult<DeleteResult>> {
    return call<DeleteResult>('workspace_delete_path', { cwd, path, confirm: true });
  },
  makeDir(cwd: string, path: string): Promise<ToolResult<MakeDirResult>> {
    return call<MakeDirResult>('workspace_make_dir', { cwd, path });
  },
  diagnostics(cwd: string, path: string, signal?: AbortSignal): Promise<ToolResult<DiagnosticsResult>> {
    return call<DiagnosticsResult>('get_diagnostics', { cwd, path }, { signal });
  },
};

/** The folder part of a relative path ('' at the top). */
export function dirName(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** The last part of a path. */
export function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** Joins relative path parts with "/", dropping empty ones. */
export function joinPath(...parts: string[]): string {
  return parts.filter(Boolean).join('/').replace(/\/{2,}/g, '/');
}

/**
 * A path typed by a person, relative to a workspace: "./a/b" → "a/b",
 * backslashes kept (they are valid in names on Linux), trailing slashes
 * dropped. Returns '' for nothing usable. Absolute paths and ".." are left
 * to the tool's boundary check, which refuses them with a clear message.
 */
export function cleanRelPath(input: string): string {
  return input.trim().replace(/^(\.\/)+/, '').replace(/\/+$/, '').replace(/\/{2,}/g, '/');
}

/**
 * Where abs lies inside root, as a relative path ('' for root itself), or
 * null when it is outside. Both are absolute slash paths.
 */
export function relativeTo(root: string, abs: string): string | null {
  const r = root.replace(/\/+$/, '');
  if (abs === r) return '';
  if (r === '') return abs.replace(/^\/+/, '');
  return abs.startsWith(r + '/') ? abs.slice(r.length + 1) : null;
}
