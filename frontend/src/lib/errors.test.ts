import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BridgeError } from './bridge';
import { humanizeError, humanizeResult, humanizeToolError } from './errors';

describe('humanizeToolError', () => {
  const cases: { name: string; error: { code?: string; message?: string }; action?: string; want: string }[] = [
    { name: 'a tool failure is its message', error: { code: 'TOOL_FAILED', message: 'not a git repository' }, want: 'Not a git repository' },
    { name: 'a code inside the message goes', error: { code: 'TOOL_FAILED', message: 'TOOL_FAILED: path escapes the folder' }, want: 'Path escapes the folder' },
    { name: 'a tool name prefix goes', error: { code: 'TOOL_FAILED', message: 'git_branch: TOOL_FAILED: branch exists' }, want: 'Branch exists' },
    { name: 'an empty message says what failed', error: { code: 'TOOL_FAILED' }, action: 'read the file', want: "Couldn't read the file." },
    { name: '"<tool> failed" says what failed', error: { code: 'TOOL_FAILED', message: 'workspace_read_file failed' }, action: 'read the file', want: "Couldn't read the file." },
    { name: 'a timeout names no tool', error: { code: 'TIMEOUT', message: 'Tool "git_diff" timed out after 30000ms' }, action: 'read the diff', want: "Couldn't read the diff: it took too long. Try again." },
    { name: 'a denial', error: { code: 'PERMISSION_DENIED', message: 'the user denied the call' }, want: 'Not allowed: the user denied the call' },
    { name: 'shutting down', error: { code: 'RUNTIME_SHUTTING_DOWN', message: 'Runtime is shutting down' }, want: 'meith is shutting down; try again after it restarts.' },
    {
      name: "git's dirty-switch message in meith's terms",
      error: {
        code: 'TOOL_FAILED',
        message:
          'Your local changes to the following files would be overwritten by checkout:\n\tREADME.md\n\tsrc/a.js\nPlease commit your changes or stash them before you switch branches.',
      },
      want: 'Switching would overwrite your changes to README.md, src/a.js. Commit or discard them in the Git panel first, then switch.',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = humanizeToolError(c.error, c.action);
      expect(got).toBe(c.want);
      expect(got).not.toMatch(/[A-Z]+_[A-Z]+/);
    });
  }

  it('humanizes thrown errors and results alike', () => {
    expect(humanizeError(new BridgeError('TOOL_FAILED', 'no such file'))).toBe('No such file');
    expect(humanizeError(new Error('VALIDATION_ERROR: name must not be empty'))).toBe('Name must not be empty');
    expect(humanizeError('BRIDGE_ERROR: boom')).toBe('Boom');
    expect(humanizeResult({ error: { code: 'TOOL_FAILED', message: '' } }, 'save the file')).toBe("Couldn't save the file.");
  });
});

// Every view shows errors through errors.ts: no file of the window builds
// "CODE: message" text itself (the code of a result, a 'TOOL_FAILED'
// fallback, or a BridgeError's code in a template).
describe('no raw error codes in the window', () => {
  const root = join(__dirname);
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) {
        if (name !== 'generated' && name !== 'testing') walk(p);
      } else if (/\.(ts|svelte)$/.test(name) && !/\.test\.ts$/.test(name)) files.push(p);
    }
  };
  walk(root);
  walk(join(root, '..', 'App.svelte').replace(/App\.svelte$/, '')); // App.svelte and main.ts
  const skip = new Set(['errors.ts', 'bridge/errors.ts', 'bridge/index.ts', 'bridge/types.ts', 'bridge/bridge.ts', 'ai/complete.ts']);
  const raw = [/'TOOL_FAILED'/, /\$\{[^}]*\bcode\b[^}]*\}:\s/, /\berr\.code\}/, /\{[^}]*\.code\}:\s/];
  it('builds no "CODE: message" text outside errors.ts', () => {
    const offenders: string[] = [];
    for (const f of new Set(files)) {
      const rel = relative(root, f);
      if (skip.has(rel) || rel.endsWith('testing.ts')) continue;
      const text = readFileSync(f, 'utf8');
      text.split('\n').forEach((line, i) => {
        if (raw.some((re) => re.test(line))) offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });
});
