// @vitest-environment happy-dom
// The editor's modal takes the focus, keeps it (Tab cycles inside) and
// gives it back when it closes (issue 17 item 7).
import { afterEach, describe, expect, it } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import Dialog, { type DialogRequest } from './Dialog.svelte';

let app: ReturnType<typeof mount> | undefined;
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
  document.body.innerHTML = '';
});
const tab = (shift = false) => {
  const ev = new KeyboardEvent('keydown', { key: 'Tab', shiftKey: shift, bubbles: true, cancelable: true });
  document.activeElement!.dispatchEvent(ev);
  return ev.defaultPrevented;
};

describe('the editor dialog', () => {
  it('takes the focus, keeps Tab inside and gives the focus back', () => {
    document.body.innerHTML = '<button id="opener">Delete…</button><div id="host"></div>';
    const opener = document.getElementById('opener') as HTMLButtonElement;
    opener.focus();
    const request: DialogRequest = { kind: 'confirm', title: 'Delete a.txt?', confirmLabel: 'Delete', resolve: () => {} };
    app = mount(Dialog, { target: document.getElementById('host')!, props: { request, onClose: () => {} } });
    flushSync();
    const dialog = document.querySelector('[role="dialog"]')!;
    const buttons = [...dialog.querySelectorAll('button')];
    expect(dialog.contains(document.activeElement)).toBe(true);
    // From the last control Tab wraps to the first; Shift+Tab from the first to the last.
    buttons.at(-1)!.focus();
    expect(tab()).toBe(true);
    expect(document.activeElement).toBe(buttons[0]);
    expect(tab(true)).toBe(true);
    expect(document.activeElement).toBe(buttons.at(-1));
    unmount(app);
    app = undefined;
    flushSync();
    expect(document.activeElement).toBe(opener);
  });
});
