import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolResult } from '../../../bridge';
import type { PatchFile } from './agentSuggest';

// The bridge's call, answering git_diff from fake.files and ai_complete with
// fake.complete (a tool result, or a promise of one that waits for a cancel).
const fake = vi.hoisted(() => ({
  calls: [] as { tool: string; args: Record<string, unknown>; signal?: AbortSignal }[],
  files: [] as PatchFile[],
  diff: null as ToolResult | null,
  complete: null as unknown as (args: Record<string, unknown>, signal?: AbortSignal) => ToolResult | Promise<ToolResult>,
}));
vi.mock('../../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../bridge')>();
  return {
    ...real,
    call: vi.fn(async (tool: string, args: Record<string, unknown> = {}, opts: { signal?: AbortSignal } = {}) => {
      fake.calls.push({ tool, args, signal: opts.signal });
      if (tool === 'git_diff') {
        if (fake.diff) return fake.diff;
        const scope = args.scope as string;
        return { ok: true, content: { isRepo: true, scope, files: structuredClone(fake.files) } };
      }
      if (tool === 'ai_complete') return fake.complete(args, opts.signal);
      return { ok: false, error: { code: 'UNKNOWN_TOOL', message: tool } };
    }),
  };
});

const {
  FALLBACK_PREFIX, MAX_PATCH_CHARS, SYSTEM_PROMPT, buildPrompt, sanitizeSubject, suggestFromDiff,
} = await import('./agentSuggest');
const { DEFAULT_WHY } = await import('./suggest');
const { isNoAgentError } = await import('../../../ai/complete');

const file = (path: string, diff: string, over: Partial<PatchFile> = {}): PatchFile => ({
  path, status: 'modified', additions: 1, deletions: 1, binary: false, diff, ...over,
});
const loginPatch = 'diff --git a/src/login.ts b/src/login.ts\n--- a/src/login.ts\n+++ b/src/login.ts\n@@ -1 +1 @@\n-old\n+new\n';
const completion = () => fake.calls.find((c) => c.tool === 'ai_complete');
const answer = (text: string): ToolResult => ({ ok: true, content: { text, truncated: false } });

beforeEach(() => {
  fake.calls = [];
  fake.diff = null;
  fake.files = [file('src/login.ts', loginPatch)];
  fake.complete = () => answer('feat(auth): add remember-me to login');
});

describe('suggestFromDiff', () => {
  it('sends the staged patch to ai.complete and uses its subject', async () => {
    const staged = [file('src/login.ts', '')];
    const s = await suggestFromDiff({ cwd: '/repo/src', staged, changes: [file('other.ts', '')] });
    expect(s).toEqual({ message: 'feat(auth): add remember-me to login', reason: 'Suggested by the agent from the staged diff.' });
    expect(fake.calls[0]).toMatchObject({ tool: 'git_diff', args: { cwd: '/repo/src', includePatches: true, scope: 'staged' } });
    const c = completion()!;
    expect(c.args).toMatchObject({ systemPrompt: SYSTEM_PROMPT, maxChars: 200, timeoutMs: 45000 });
    expect(c.args.prompt).toContain('staged changes');
    expect(c.args.prompt).toContain('- modified src/login.ts (+1 -1)');
    expect(c.args.prompt).toContain('```diff\n' + loginPatch + '```');
    expect(SYSTEM_PROMPT).toMatch(/exactly ONE line/);
    expect(SYSTEM_PROMPT).toMatch(/Conventional Commit/);
    expect(SYSTEM_PROMPT).toMatch(/72 characters/);
  });

  it('uses the whole working tree when nothing is staged', async () => {
    const s = await suggestFromDiff({ cwd: '/repo', staged: [], changes: [file('src/login.ts', '')] });
    expect(fake.calls[0].args).toEqual({ cwd: '/repo', includePatches: true, scope: 'all' });
    expect(completion()!.args.prompt).toContain('working-tree changes');
    expect(s.reason).toBe('Suggested by the agent from the working-tree diff.');
  });

  it('cleans up a chatty answer', async () => {
    fake.complete = () => answer('```\n- Commit message: "fix(git): keep the index on restore."\n```\nThis fixes the bug.');
    const s = await suggestFromDiff({ cwd: '/repo', staged: fake.files, changes: [] });
    expect(s.message).toBe('fix(git): keep the index on restore');
  });

  it.each([
    ['a timeout', { ok: false, error: { code: 'TIMEOUT', message: 'ai_complete: no answer within 45s' } }, 'the agent did not answer in time'],
    ['an agent error', { ok: false, error: { code: 'TOOL_FAILED', message: 'claude exited: not logged in\nstack…' } }, 'the agent failed (Claude exited: not logged in)'],
    ['a missing tool', { ok: false, error: { code: 'UNKNOWN_TOOL', message: 'ai_complete' } }, 'agent completions are not available in this build'],
    ['an empty answer', answer(' \n```\n``` \n "" '), "the agent's answer was empty"],
  ] as [string, ToolResult, string][])('falls back to the file names on %s and says why', async (_name, result, why) => {
    fake.complete = () => result;
    fake.files = [file('src/login.ts', loginPatch, { status: 'added' })];
    const s = await suggestFromDiff({ cwd: '/repo', staged: fake.files, changes: [] });
    expect(s).toEqual({ message: 'feat: update login.ts', reason: FALLBACK_PREFIX + why });
    expect(s.reason).not.toBe(DEFAULT_WHY);
  });

  it('falls back to the panel lists when the diff cannot be read', async () => {
    fake.diff = { ok: false, error: { code: 'TOOL_FAILED', message: 'index.lock exists' } };
    const s = await suggestFromDiff({ cwd: '/repo', staged: [], changes: [file('README.md', '')] });
    expect(s).toEqual({ message: 'docs: update README.md', reason: `${FALLBACK_PREFIX}couldn't read the diff (Index.lock exists)` });
    expect(completion()).toBeUndefined();
  });

  it('rejects with the no-agent error instead of guessing from file names when no agent is configured', async () => {
    fake.complete = () => ({ ok: false, error: { code: 'VALIDATION_ERROR', message: 'No agent configured: choose one in Settings → Agent' } });
    const err = await suggestFromDiff({ cwd: '/repo', staged: fake.files, changes: [] }).catch((e: unknown) => e);
    expect(isNoAgentError(err)).toBe(true);
  });

  it('does not ask the agent when there is nothing to describe', async () => {
    fake.files = [];
    const s = await suggestFromDiff({ cwd: '/repo', staged: [], changes: [] });
    expect(s).toEqual({ message: 'chore: update files', reason: `${FALLBACK_PREFIX}there are no changes to describe` });
    expect(completion()).toBeUndefined();
  });

  it('rejects with CANCELLED when aborted while the agent works', async () => {
    fake.complete = (_args, signal) =>
      new Promise((resolve) => signal!.addEventListener('abort', () => resolve({ ok: false, error: { code: 'CANCELLED', message: 'cancelled' } })));
    const ctl = new AbortController();
    const p = suggestFromDiff({ cwd: '/repo', staged: fake.files, changes: [], signal: ctl.signal });
    await vi.waitFor(() => expect(completion()).toBeDefined());
    expect(completion()!.signal).toBe(ctl.signal);
    expect(fake.calls[0].signal).toBe(ctl.signal);
    ctl.abort();
    await expect(p).rejects.toMatchObject({ name: 'BridgeError', code: 'CANCELLED' });
  });
});

describe('buildPrompt', () => {
  it('cuts the patch to MAX_PATCH_CHARS and says so', async () => {
    const big = '+'.repeat(MAX_PATCH_CHARS + 500);
    const { prompt, cut } = buildPrompt([file('a.txt', big), file('b.txt', '+tail\n')], 'staged');
    expect(cut).toBe(true);
    expect(prompt.length).toBeLessThan(MAX_PATCH_CHARS + 1000);
    expect(prompt).toContain(`[diff cut at ${MAX_PATCH_CHARS} characters; 507 more left out]`);
    expect(prompt).not.toContain('+tail');
    expect(prompt).toContain('- modified b.txt (+1 -1)'); // the list keeps every file

    fake.files = [file('a.txt', big)];
    const s = await suggestFromDiff({ cwd: '/repo', staged: fake.files, changes: [] });
    expect(s.reason).toBe('Suggested by the agent from the staged diff (its first 60,000 characters).');
  });

  it('lists renames and binaries, and fences a patch that holds backticks', () => {
    const { prompt, cut } = buildPrompt(
      [file('new.md', '+```js\n+x\n+```\n', { originalPath: 'old.md', status: 'renamed' }), file('logo.png', '', { binary: true, status: 'added', additions: 0, deletions: 0 })],
      'all',
    );
    expect(cut).toBe(false);
    expect(prompt).toContain('- renamed old.md → new.md (+1 -1)\n- added logo.png (+0 -0) [binary]');
    expect(prompt).toContain('````diff\n+```js\n+x\n+```\n````');
  });
});

describe('sanitizeSubject', () => {
  it.each([
    ['feat: add x', 'feat: add x'],
    ['  "fix: y."  ', 'fix: y'],
    ['`chore: bump deps`', 'chore: bump deps'],
    ["'docs: readme'\n\nBody text", 'docs: readme'],
    ['1. refactor: split store', 'refactor: split store'],
    ['**feat: bold**', 'feat: bold'],
    ['Subject: test: cover it', 'test: cover it'],
    ['“feat: smart quotes”', 'feat: smart quotes'],
    ['\n\n```text\nfeat:   spaced   out\n```', 'feat: spaced out'],
    ['', ''],
  ])('%j → %j', (input, want) => {
    expect(sanitizeSubject(input)).toBe(want);
  });

  it('cuts a long subject at a word, to 72 characters', () => {
    const s = sanitizeSubject(`feat: ${'word '.repeat(30)}`);
    expect(s.length).toBeLessThanOrEqual(72);
    expect(s).toMatch(/^feat: (word )+word$/);
    expect(sanitizeSubject(`fix: ${'x'.repeat(100)}`)).toHaveLength(72);
  });
});
