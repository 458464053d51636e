// Where an agent's tool call touched a file, for the tool card's "Open in
// editor": the file of meith's own file tools (workspace_read_file,
// workspace_write_file, workspace_apply_patch, workspace_undo,
// workspace_rename_path's new path, get_diagnostics with a path) and of the
// agent's own read/edit tools (ACP kinds "read" and "edit", whose input names
// the file as path, file_path or filePath), and the line: the first line a
// write changed, the first edit of a patch, the first diagnostic, or the
// line (or a read's offset) the call asked for. Pure, so it is tested alone.
import type { AgentToolCall } from '../../bridge';
import { toolDisplayName } from './format';

/** A file to open: a folder, a path in it (or absolute), and a 1-based line and column (UTF-16 units). */
export interface FileTarget {
  cwd: string;
  path: string;
  line?: number;
  column?: number;
}

// meith's tools that name one file in `path` (rename: the file is at newPath afterwards).
const MEITH_FILE_TOOLS = new Set([
  'workspace_read_file',
  'workspace_write_file',
  'workspace_apply_patch',
  'workspace_undo',
  'workspace_rename_path',
  'get_diagnostics',
]);

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' && !v.includes('\0') ? v : undefined);
const lineNo = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : undefined);

/** The 1-based line and column of a UTF-16 offset in text. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  const o = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < o; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: o - start + 1 };
}

/** The first line (1-based) where b differs from a; undefined when equal. */
export function firstChangedLine(a: string, b: string): number | undefined {
  if (a === b) return undefined;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return lineColumnAt(b, i).line;
}

/** The file a tool call touched, or null when it names none (or deleted it). */
export function fileTarget(call: AgentToolCall, sessionCwd: string): FileTarget | null {
  const args = call.args;
  if (!isObj(args)) return null;
  const name = toolDisplayName(call.name);
  const meith = call.source !== 'agent' && MEITH_FILE_TOOLS.has(name);
  const agentFile = call.source === 'agent' && (call.kind === 'read' || call.kind === 'edit');
  if (!meith && !agentFile) return null;

  const path = meith
    ? name === 'workspace_rename_path'
      ? str(args.newPath)
      : str(args.path)
    : (str(args.path) ?? str(args.file_path) ?? str(args.filePath));
  if (!path) return null;

  const argCwd = str(args.cwd);
  const cwd = !argCwd ? sessionCwd : argCwd.startsWith('/') ? argCwd : `${sessionCwd.replace(/\/+$/, '')}/${argCwd}`;
  const target: FileTarget = { cwd, path };

  const asked = lineNo(args.line) ?? lineNo(args.startLine) ?? lineNo(args.start_line) ?? (agentFile ? lineNo(args.offset) : undefined);
  if (asked) {
    target.line = asked;
    return target;
  }

  const result = call.result;
  const content = result?.ok ? (isObj(result.content) ? result.content : isObj(result.data) ? result.data : undefined) : undefined;
  if (!content) return target;
  const undo = isObj(content.undo) ? content.undo : undefined;

  if (name === 'workspace_apply_patch' && Array.isArray(args.edits)) {
    const starts = args.edits.filter(isObj).map((e) => e.start).filter((s): s is number => typeof s === 'number' && s >= 0);
    const before = str(content.before) ?? str(undo?.previousContent);
    if (starts.length > 0 && before !== undefined) {
      const first = Math.min(...starts);
      if (first <= before.length) Object.assign(target, lineColumnAt(before, first));
    }
  } else if (name === 'workspace_write_file' && undo) {
    const prev = typeof undo.previousContent === 'string' ? undo.previousContent : null;
    const next = typeof undo.newContent === 'string' ? undo.newContent : null;
    if (prev !== null && next !== null) target.line = firstChangedLine(prev, next);
  } else if (name === 'get_diagnostics' && Array.isArray(content.diagnostics)) {
    const d = content.diagnostics.find(isObj);
    if (d && lineNo(d.line)) {
      target.line = lineNo(d.line);
      target.column = lineNo(d.column);
    }
  }
  if (target.line === undefined) delete target.line;
  if (target.column === undefined) delete target.column;
  return target;
}
