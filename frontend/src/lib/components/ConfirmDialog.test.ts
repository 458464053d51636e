// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import { confirmDialog, dialogs } from '../stores/dialogs.svelte';
import ConfirmDialog from './ConfirmDialog.svelte';

let app: ReturnType<typeof mount> | undefined;
beforeEach(() => {
  document.body.innerHTML = '<button id="outside">outside</button>';
  app = mount(ConfirmDialog, { target: document.body });
  flushSync();
});
afterEach(() => {
  dialogs.cancelAll();
  if (app) unmount(app);
  app = undefined;
});

const dialog = () => document.querySelector('[role="alertdialog"]') as HTMLElement | null;
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === name) as HTMLButtonElement;
const key = (k: string, init: KeyboardEventInit = {}) => {
  (document.activeElement ?? document.body).dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...init }));
  flushSync();
};

describe('ConfirmDialog', () => {
  it('asks in the window, says what the destructive button does, and resolves true on it', async () => {
    const answer = confirmDialog({ title: 'Discard changes?', message: 'Changes in a.txt are discarded.', confirmLabel: 'Discard', destructive: true });
    flushSync();
    expect(dialog()?.getAttribute('aria-modal')).toBe('true');
    expect(dialog()?.textContent).toContain('Changes in a.txt are discarded.');
    expect(button('Discard').classList.contains('solid')).toBe(true);
    button('Discard').click();
    expect(await answer).toBe(true);
    flushSync();
    expect(dialog()).toBeNull();
  });

  it('takes focus, keeps Tab inside, Esc cancels and Enter confirms', async () => {
    const first = confirmDialog({ title: 'Delete file?', message: 'x', confirmLabel: 'Delete file', destructive: true });
    flushSync();
    await Promise.resolve();
    expect(dialog()!.contains(document.activeElement)).toBe(true);
    for (let i = 0; i < 3; i++) {
      key('Tab');
      expect(dialog()!.contains(document.activeElement)).toBe(true);
      key('Tab', { shiftKey: true });
      expect(dialog()!.contains(document.activeElement)).toBe(true);
    }
    key('Escape');
    expect(await first).toBe(false);

    const second = confirmDialog({ title: 'Restore?', message: 'y', confirmLabel: 'Restore' });
    flushSync();
    await Promise.resolve();
    key('Enter');
    expect(await second).toBe(true);
  });

  it('shows queued questions one after another', async () => {
    const a = confirmDialog({ title: 'A?', message: 'a', confirmLabel: 'Yes A' });
    const b = confirmDialog({ title: 'B?', message: 'b', confirmLabel: 'Yes B' });
    flushSync();
    button('Cancel').click();
    expect(await a).toBe(false);
    flushSync();
    button('Yes B').click();
    expect(await b).toBe(true);
  });
});
