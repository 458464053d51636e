import { describe, expect, it } from 'vitest';
import { actionFor, fileSize, prettyJson, relativeTime, resultText, splitPatch, toolDisplayName } from './format';

describe('agent format helpers', () => {
  it('strips the meith MCP prefix from tool names', () => {
    expect(toolDisplayName('mcp__meith__git_status')).toBe('git_status');
    expect(toolDisplayName('Bash')).toBe('Bash');
    expect(toolDisplayName('mcp__other__x')).toBe('mcp__other__x');
  });

  it('names the action of each capability as the permission card says it', () => {
    expect(actionFor('writes-files')).toBe('write files');
    expect(actionFor('starts-process')).toBe('start a process');
    expect(actionFor('controls-browser')).toBe('control the browser');
    expect(actionFor('destructive')).toBe('perform a destructive action');
    expect(actionFor('accesses-network')).toBe('access the network');
  });

  it('gives relative times and sizes', () => {
    const now = 10 * 86_400_000;
    expect(relativeTime(now - 10_000, now)).toBe('now');
    expect(relativeTime(now - 5 * 60_000, now)).toBe('5m');
    expect(relativeTime(now - 2 * 3_600_000, now)).toBe('2h');
    expect(relativeTime(now - 3 * 86_400_000, now)).toBe('3d');
    expect(fileSize(512)).toBe('512 B');
    expect(fileSize(2048)).toBe('2.0 KiB');
    expect(fileSize(3 * 1024 * 1024)).toBe('3.0 MiB');
  });

  it('shows tool results: errors in words (no CODE:), data as JSON, agent output as text', () => {
    const base = { id: 'c', name: 'x', source: 'meith' as const, startedAt: 0 };
    expect(resultText({ ...base, status: 'failed', result: { ok: false, error: { code: 'TIMEOUT', message: 'too slow' } } })).toEqual({ error: true, text: "Couldn't run the tool: too slow" });
    expect(resultText({ ...base, status: 'completed', result: { ok: true, content: { a: 1 } } })).toEqual({ error: false, text: '{\n  "a": 1\n}' });
    expect(resultText({ ...base, status: 'completed', result: { ok: true, data: 'plain' } })).toEqual({ error: false, text: 'plain' });
    expect(resultText({ ...base, source: 'agent', status: 'completed', output: 'ok\n' })).toEqual({ error: false, text: 'ok\n' });
    expect(resultText({ ...base, status: 'running' })).toBeNull();
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
  });

  it('splits a multi-file patch per file, naming deleted files by their old path', () => {
    const patch = [
      'diff --git a/a.ts b/a.ts',
      '--- a/a.ts',
      '+++ b/a.ts',
      '@@ -1 +1 @@',
      '--- not a header',
      '+++ not a header either',
      'diff --git a/gone.txt b/gone.txt',
      'deleted file mode 100644',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-x',
      'diff --git a/new.txt b/new.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/new.txt',
      '@@ -0,0 +1 @@',
      '+y',
    ].join('\n');
    const files = splitPatch(patch);
    expect(files.map((f) => f.path)).toEqual(['a.ts', 'gone.txt', 'new.txt']);
    expect(files[0].diff.split('\n')).toHaveLength(6);
    expect(files[1].diff).toContain('-x');
    expect(splitPatch('')).toEqual([]);
  });
});
