// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { WorkspaceTab } from '../../bridge';

// A repository in the middle of a merge: README.md conflicted (its diff has
// the markers), a.txt changed; git tools answer from this model.
const fake = vi.hoisted(() => ({
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  conflicted: ['README.md'],
  staged: [] as string[],
}));
const markers = 'diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1,5 @@\n-hello from main\n+<<<<<<< HEAD\n+hello from main\n+=======\n+hello from side\n+>>>>>>> side\n';
const aPatch = 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+uno\n-two\n+dos\n';
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  const f = (path: string, status: string) => ({ path, status, additions: 2, deletions: 2, binary: false });
  return {
    ...real,
    call: vi.fn(async (tool: string, args: Record<string, unknown> = {}) => {
      fake.calls.push({ tool, args });
      switch (tool) {
        case 'git_status':
          return { ok: true, content: { isRepo: true, root: '/repo', branch: 'main', clean: false, merging: true,
            conflicted: fake.conflicted.map((path) => ({ path, status: 'conflicted' })) } };
        case 'git_diff': {
          let files: (ReturnType<typeof f> & { diff?: string })[] = [];
          if (args.scope === 'unstaged') files = [f('a.txt', 'modified'), ...fake.conflicted.map((p) => f(p, 'conflicted'))];
          if (args.scope === 'staged') files = fake.staged.map((p) => f(p, 'modified'));
          if (args.onlyPath) files = files.filter((x) => x.path === args.path).map((x) => ({ ...x, diff: x.path === 'README.md' ? markers : aPatch }));
          return { ok: true, content: { isRepo: true, root: '/repo', scope: args.scope, files, totalAdditions: 0, totalDeletions: 0 } };
        }
        case 'git_stage':
          fake.conflicted = fake.conflicted.filter((p) => !(args.paths as string[]).includes(p));
          fake.staged.push(...(args.paths as string[]));
          return { ok: true, content: {} };
        case 'git_restore':
          return { ok: true, content: { checkpoint: { id: 'cp_9' } } };
        default:
          return { ok: true, content: {} };
      }
    }),
    subscribe: vi.fn(() => () => {}),
  };
});

const { default: GitPanel } = await import('./GitPanel.svelte');
const { dialogs } = await import('../../stores/dialogs.svelte');

const tab: WorkspaceTab = {
  id: 'wtab_1', spaceId: 'space_1', kind: 'git', title: 'Git', cwd: '/repo', active: true,
  pane: 'primary', terminalId: null, activeFilePath: null, openFilePaths: [], selectedGitFilePath: null, createdAt: 1,
};
const settle = async () => {
  for (let i = 0; i < 8; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const $ = (s: string) => document.querySelector(s) as HTMLElement | null;
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === name) as HTMLButtonElement | undefined;

let app: ReturnType<typeof mount> | undefined;
beforeEach(async () => {
  fake.calls = [];
  fake.conflicted = ['README.md'];
  fake.staged = [];
  dialogs.cancelAll();
  document.body.innerHTML = '';
  app = mount(GitPanel, { target: document.body, props: { tab } });
  await settle();
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
});

describe('GitPanel during a merge', () => {
  it('shows the banner, lists the conflicted file first with a badge, and its diff with the markers', async () => {
    expect($('[data-testid="merge-banner"]')?.textContent).toContain('Merge in progress: 1 conflicted file');
    const rows = [...document.querySelectorAll('[aria-label="Changed files"] [data-path]')];
    expect(rows.map((r) => r.getAttribute('data-path'))).toEqual(['README.md', 'a.txt']);
    expect(rows[0].querySelector('.badge')?.textContent).toBe('conflict');
    (rows[0] as HTMLElement).click();
    await settle();
    expect($('[aria-label="Diff of README.md"]')?.textContent).toContain('<<<<<<< HEAD');
    expect(($('button.commit') as HTMLButtonElement).disabled).toBe(true);
    expect($('button.commit')?.textContent).toBe('Commit merge');

    (document.querySelector('[aria-label="Stage README.md"]') as HTMLElement).click();
    await settle();
    expect($('[data-testid="merge-banner"]')?.textContent).toContain('All conflicts resolved');
    const box = $('textarea') as HTMLTextAreaElement;
    box.value = "Merge branch 'side'";
    box.dispatchEvent(new Event('input'));
    flushSync();
    expect(($('button.commit') as HTMLButtonElement).disabled).toBe(false);
  });

  it('shows the line selection bar as an overlay and discards the selected lines after asking', async () => {
    (document.querySelector('[data-path="a.txt"]') as HTMLElement).click();
    await settle();
    (document.querySelector('[aria-label="Select deleted line 1"]') as HTMLElement).click();
    flushSync();
    const bar = $('.picked-bar')!;
    expect(bar.classList.contains('overlay')).toBe(true);
    // The bar is not a sibling in the flow above the diff: it floats inside the diff's stage.
    expect(bar.parentElement?.classList.contains('diff-stage')).toBe(true);
    button('Discard selected lines')!.click();
    await settle();
    expect(dialogs.current?.confirmLabel).toBe('Discard');
    dialogs.answer(dialogs.current!.id, true);
    await settle();
    const restore = fake.calls.find((c) => c.tool === 'git_restore')!;
    // Reversed onto the worktree: the unselected additions are context, the unselected deletion is left out.
    expect(restore.args.patch).toContain('\n-one\n uno\n dos\n');
    expect(restore.args.patch).not.toContain('two');
  });
});
