import { describe, expect, it } from 'vitest';
import type { AgentToolCall } from '../../bridge';
import { fileTarget, firstChangedLine, lineColumnAt } from './fileTarget';

const SESSION = '/home/me/shop';

function tc(name: string, args: unknown, over: Partial<AgentToolCall> = {}): AgentToolCall {
  return { id: 'call_1', name, source: 'meith', args, status: 'completed', startedAt: 1, ...over } as AgentToolCall;
}
const ok = (content: unknown) => ({ result: { ok: true, content } }) as Partial<AgentToolCall>;

describe('fileTarget: the file and line a tool call touched', () => {
  it.each<[string, AgentToolCall, ReturnType<typeof fileTarget>]>([
    ['read_file: the file, no line', tc('mcp__meith__workspace_read_file', { cwd: '/w', path: 'src/a.go' }), { cwd: '/w', path: 'src/a.go' }],
    [
      'write_file: the first line the write changed',
      tc('workspace_write_file', { cwd: '/w', path: 'a.txt', content: '…' }, ok({ undo: { path: '/w/a.txt', previousContent: 'one\ntwo\nthree\n', newContent: 'one\ntwo\nTHREE\n' } })),
      { cwd: '/w', path: 'a.txt', line: 3 },
    ],
    [
      'write_file that created the file: line 1 is not forced',
      tc('workspace_write_file', { cwd: '/w', path: 'new.txt' }, ok({ undo: { previousContent: null, newContent: 'x' } })),
      { cwd: '/w', path: 'new.txt' },
    ],
    [
      'apply_patch: line and column of the first edit in the content before',
      tc('workspace_apply_patch', { cwd: '/w', path: 'p.ts', edits: [{ start: 14, end: 15, newText: 'Z' }, { start: 6, end: 6, newText: 'y' }] }, ok({ before: 'ab\ncd\nefgh\nij\n' })),
      { cwd: '/w', path: 'p.ts', line: 3, column: 1 },
    ],
    [
      'apply_patch whose result did not come back: the file alone',
      tc('workspace_apply_patch', { cwd: '/w', path: 'p.ts', edits: [{ start: 3, end: 3, newText: 'x' }] }, { status: 'failed', result: { ok: false, error: { code: 'TOOL_FAILED', message: 'm' } } } as Partial<AgentToolCall>),
      { cwd: '/w', path: 'p.ts' },
    ],
    [
      'get_diagnostics: the first diagnostic',
      tc('get_diagnostics', { cwd: '/w', path: 'main.go' }, ok({ unsupported: false, diagnostics: [{ path: 'main.go', line: 7, column: 2, message: 'x' }] })),
      { cwd: '/w', path: 'main.go', line: 7, column: 2 },
    ],
    ['rename: the new path', tc('workspace_rename_path', { cwd: '/w', path: 'old.go', newPath: 'new.go' }), { cwd: '/w', path: 'new.go' }],
    ['no cwd: the session folder', tc('workspace_read_file', { path: 'README.md' }), { cwd: SESSION, path: 'README.md' }],
    ['a relative cwd: under the session folder', tc('workspace_read_file', { cwd: 'web', path: 'x.ts' }), { cwd: `${SESSION}/web`, path: 'x.ts' }],
    [
      "the agent's own edit tool (file_path)",
      tc('Edit', { file_path: '/home/me/shop/a.py', old_string: 'a', new_string: 'b' }, { source: 'agent', kind: 'edit' }),
      { cwd: SESSION, path: '/home/me/shop/a.py' },
    ],
    [
      "the agent's own read tool with an offset: that line",
      tc('Read', { file_path: 'lib/b.rs', offset: 120, limit: 40 }, { source: 'agent', kind: 'read' }),
      { cwd: SESSION, path: 'lib/b.rs', line: 120 },
    ],
  ])('%s', (_name, call, want) => {
    expect(fileTarget(call, SESSION)).toEqual(want);
  });

  it.each<[string, AgentToolCall]>([
    ['delete: the file is gone', tc('workspace_delete_path', { cwd: '/w', path: 'a.txt', confirm: true })],
    ['make_dir: a folder', tc('workspace_make_dir', { cwd: '/w', path: 'd' })],
    ['search: many files', tc('workspace_search', { cwd: '/w', query: 'x', path: 'src' })],
    ['a git tool with a path', tc('git_diff', { cwd: '/w', path: 'a.txt' })],
    ['get_diagnostics of the whole workspace', tc('get_diagnostics', { cwd: '/w' })],
    ["the agent's shell", tc('Bash', { command: 'cat a.txt', path: 'a.txt' }, { source: 'agent', kind: 'execute' })],
    ['no arguments', tc('workspace_read_file', undefined)],
    ['a path with a NUL', tc('workspace_read_file', { cwd: '/w', path: 'a\0b' })],
  ])('none for %s', (_name, call) => {
    expect(fileTarget(call, SESSION)).toBeNull();
  });
});

describe('line helpers', () => {
  it('finds the line and column of an offset (UTF-16 units)', () => {
    expect(lineColumnAt('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnAt('ab\ncd', 2)).toEqual({ line: 1, column: 3 });
    expect(lineColumnAt('ab\ncd', 3)).toEqual({ line: 2, column: 1 });
    expect(lineColumnAt('😀\nx', 3)).toEqual({ line: 2, column: 1 });
    expect(lineColumnAt('ab', 99)).toEqual({ line: 1, column: 3 });
  });

  it('finds the first changed line', () => {
    expect(firstChangedLine('a\nb\n', 'a\nb\n')).toBeUndefined();
    expect(firstChangedLine('a\nb\n', 'a\nc\n')).toBe(2);
    expect(firstChangedLine('a\n', 'a\nmore\n')).toBe(2);
    expect(firstChangedLine('x', '')).toBe(1);
  });
});
