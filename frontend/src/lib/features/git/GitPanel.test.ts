// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { ToolResult, WorkspaceTab } from '../../bridge';

// A repository with one staged file: git_status and git_diff answer from it,
// ai_complete waits for the test (fake.answer) or for a cancel.
const fake = vi.hoisted(() => ({
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  answer: null as ((r: ToolResult) => void) | null,
  completionSignal: null as AbortSignal | null,
}));
const patch = 'diff --git a/api/auth.go b/api/auth.go\n--- a/api/auth.go\n+++ b/api/auth.go\n@@ -1 +1 @@\n-return nil\n+return errExpired\n';
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  const staged = { path: 'api/auth.go', status: 'modified', additions: 1, deletions: 1, binary: false };
  return {
    ...real,
    call: vi.fn(async (tool: string, args: Record<string, unknown> = {}, opts: { signal?: AbortSignal } = {}) => {
      fake.calls.push({ tool, args });
      switch (tool) {
        case 'git_status':
          return { ok: true, content: { isRepo: true, root: '/repo', branch: 'main', clean: false } };
        case 'git_diff': {
          const files = args.scope === 'staged' ? [{ ...staged, diff: args.includePatches ? patch : '' }] : [];
          return { ok: true, content: { isRepo: true, root: '/repo', scope: args.scope, files, totalAdditions: 1, totalDeletions: 1 } };
        }
        case 'ai_complete':
          fake.completionSignal = opts.signal ?? null;
          return new Promise<ToolResult>((resolve) => {
            fake.answer = resolve;
            opts.signal?.addEventListener('abort', () => resolve({ ok: false, error: { code: 'CANCELLED', message: 'cancelled' } }));
          });
        default:
          return { ok: true, content: {} };
      }
    }),
    subscribe: vi.fn(() => () => {}),
  };
});

const { default: GitPanel } = await import('./GitPanel.svelte');

const tab: WorkspaceTab = {
  id: 'wtab_1', spaceId: 'space_1', kind: 'git', title: 'Git', cwd: '/repo', active: true,
  pane: 'primary', terminalId: null, activeFilePath: null, openFilePaths: [], selectedGitFilePath: null, createdAt: 1,
};
const settle = async () => {
  for (let i = 0; i < 8; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const suggestButton = () => document.querySelector('button.suggest') as HTMLButtonElement;
const box = () => document.querySelector('textarea') as HTMLTextAreaElement;

let app: ReturnType<typeof mount> | undefined;
beforeEach(async () => {
  fake.calls = [];
  fake.answer = null;
  fake.completionSignal = null;
  document.body.innerHTML = '';
  app = mount(GitPanel, { target: document.body, props: { tab } });
  await settle();
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
});

describe('GitPanel commit suggestion', () => {
  it('asks the agent with the staged patch, shows progress, and fills in the cleaned subject', async () => {
    suggestButton().click();
    await settle();
    expect(fake.calls.filter((c) => c.tool === 'git_diff').at(-1)!.args).toEqual({ cwd: '/repo', includePatches: true, scope: 'staged' });
    const ask = fake.calls.find((c) => c.tool === 'ai_complete')!;
    expect(ask.args.prompt).toContain(patch);
    expect(suggestButton().textContent).toBe('Suggesting…');
    expect(suggestButton().disabled).toBe(true);
    expect(document.querySelector('[role="status"]')?.textContent).toBe('Suggesting a message…');

    fake.answer!({ ok: true, content: { text: '"fix(api): reject expired tokens."\n', truncated: false } });
    await settle();
    expect(box().value).toBe('fix(api): reject expired tokens');
    expect(document.querySelector('.reason')?.textContent).toBe('Suggested by the agent from the staged diff.');
    expect(suggestButton().textContent).toBe('Suggest');
  });

  it('says that no agent is configured and offers Settings → Agent instead of guessing a message', async () => {
    suggestButton().click();
    await settle();
    fake.answer!({ ok: false, error: { code: 'VALIDATION_ERROR', message: 'No agent configured: choose one in Settings → Agent' } });
    await settle();
    expect(box().value).toBe('');
    expect(document.querySelector('.reason')).toBeNull();
    const note = document.querySelector('[data-testid="suggest-no-agent"]');
    expect(note?.textContent).toContain('No agent is set up to suggest a message');
    expect(note?.textContent).not.toMatch(/VALIDATION_ERROR|TOOL_FAILED/);
    const go = [...note!.querySelectorAll('button')].find((b) => b.textContent === 'Settings → Agent')!;
    const { ui } = await import('../../stores/ui.svelte');
    go.click();
    expect(ui.view).toBe('settings');
    expect(ui.settingsSection).toBe('agent');
  });

  it('cancels the completion when the panel closes', async () => {
    suggestButton().click();
    await settle();
    expect(fake.completionSignal?.aborted).toBe(false);
    unmount(app!);
    app = undefined;
    expect(fake.completionSignal?.aborted).toBe(true);
  });
});
