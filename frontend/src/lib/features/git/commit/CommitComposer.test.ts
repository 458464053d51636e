// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import CommitComposer from './CommitComposer.svelte';

type Props = {
  stagedCount: number;
  identity: { name: string; email: string } | null;
  busy: boolean;
  error: string;
  onCommit: (message: string) => Promise<boolean>;
  onSuggest: () => Promise<{ message: string; reason: string }>;
};

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const box = () => document.querySelector('textarea') as HTMLTextAreaElement;
const button = (name: string) =>
  [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === name) as HTMLButtonElement;
const type = (text: string) => {
  box().value = text;
  box().dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
};
const press = (init: KeyboardEventInit) => {
  box().dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true, ...init }));
  flushSync();
};

let app: ReturnType<typeof mount> | undefined;
let onCommit: ReturnType<typeof vi.fn<Props['onCommit']>>;
let onSuggest: ReturnType<typeof vi.fn<Props['onSuggest']>>;

function render(over: Partial<Props> = {}) {
  app = mount(CommitComposer, {
    target: document.body,
    props: { stagedCount: 1, identity: null, busy: false, error: '', onCommit, onSuggest, ...over },
  });
  flushSync();
}

beforeEach(() => {
  document.body.innerHTML = '';
  onCommit = vi.fn(async () => true);
  onSuggest = vi.fn(async () => ({ message: 'fix: update a.ts', reason: 'No agent is configured.' }));
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
});

describe('CommitComposer', () => {
  it('labels the box and shows the placeholder', () => {
    render();
    const label = document.querySelector('label') as HTMLLabelElement;
    expect(label.textContent).toBe('Commit message');
    expect(document.getElementById(label.htmlFor)).toBe(box());
    expect(box().placeholder).toBe('Message (Ctrl+Enter to commit)');
  });

  it('shows the identity line for a profile and for the repository config', () => {
    render({ identity: { name: 'Ada Lovelace', email: 'ada@example.com' } });
    expect(document.body.textContent).toContain('Committing as Ada Lovelace <ada@example.com>');
    unmount(app!);
    document.body.innerHTML = '';
    render({ identity: null });
    expect(document.body.textContent).toContain('Committing with repository Git config');
  });

  it('enables Commit only with staged files and a non-blank message', () => {
    render({ stagedCount: 0 });
    type('fix: thing');
    expect(button('Commit').disabled).toBe(true);
    unmount(app!);
    document.body.innerHTML = '';

    render({ stagedCount: 2 });
    expect(button('Commit').disabled).toBe(true);
    type('   \n ');
    expect(button('Commit').disabled).toBe(true);
    type('fix: thing');
    expect(button('Commit').disabled).toBe(false);
  });

  it('commits on click and clears the message when the commit succeeds', async () => {
    render();
    type('fix: thing');
    button('Commit').click();
    await settle();
    expect(onCommit).toHaveBeenCalledWith('fix: thing');
    expect(box().value).toBe('');
  });

  it('keeps the message when the commit fails', async () => {
    onCommit = vi.fn(async () => false);
    render();
    type('fix: thing');
    button('Commit').click();
    await settle();
    expect(onCommit).toHaveBeenCalledOnce();
    expect(box().value).toBe('fix: thing');
  });

  it('commits with Ctrl+Enter or Cmd+Enter only when Commit is enabled', async () => {
    render({ stagedCount: 0 });
    type('fix: thing');
    press({ ctrlKey: true });
    await settle();
    expect(onCommit).not.toHaveBeenCalled();
    unmount(app!);
    document.body.innerHTML = '';

    render();
    type('fix: thing');
    press({});
    await settle();
    expect(onCommit).not.toHaveBeenCalled();
    press({ ctrlKey: true });
    await settle();
    expect(onCommit).toHaveBeenCalledWith('fix: thing');
    type('feat: other');
    press({ metaKey: true });
    await settle();
    expect(onCommit).toHaveBeenLastCalledWith('feat: other');
  });

  it('fills the box from Suggest and shows the reason', async () => {
    render({ stagedCount: 0 });
    button('Suggest').click();
    await settle();
    expect(onSuggest).toHaveBeenCalledOnce();
    expect(box().value).toBe('fix: update a.ts');
    expect(document.querySelector('.reason')?.textContent).toBe('No agent is configured.');
    expect(button('Commit').disabled).toBe(true);
  });

  it('shows a failed suggestion inline', async () => {
    onSuggest = vi.fn(async () => {
      throw new Error('boom');
    });
    render();
    button('Suggest').click();
    await settle();
    expect(document.querySelector('[role="alert"]')?.textContent).toBe('Suggestion failed: Boom');
  });

  it('shows the error prop as an alert', () => {
    render({ error: 'nothing to commit' });
    expect(document.querySelector('[role="alert"]')?.textContent).toBe('nothing to commit');
  });

  it('disables everything while busy', async () => {
    render({ busy: true });
    expect(box().disabled).toBe(true);
    expect(button('Suggest').disabled).toBe(true);
    expect(button('Commit').disabled).toBe(true);
    type('fix: thing');
    press({ ctrlKey: true });
    await settle();
    expect(onCommit).not.toHaveBeenCalled();
  });
});
