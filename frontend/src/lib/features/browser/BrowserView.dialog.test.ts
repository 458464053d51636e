// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { BrowserTab } from '../../bridge';

// The frame puller stand-in hands the view's onDialog to the test; the
// bridge stand-in answers the dialog and link tools.
const fake = vi.hoisted(() => ({
  calls: [] as { tool: string; args: Record<string, unknown> }[],
  onDialog: undefined as ((type: string) => void) | undefined,
  dialog: null as null | Record<string, unknown>,
  href: '',
}));
vi.mock('./frames', () => ({
  pullFrames: vi.fn(async (_id: string, opts: { onDialog?: (t: string) => void }) => void (fake.onDialog = opts.onDialog)),
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    call: vi.fn(async (tool: string, args: Record<string, unknown> = {}) => {
      fake.calls.push({ tool, args });
      if (tool === 'get_browser_dialog') return { ok: true, content: { tabId: args.tabId, dialog: fake.dialog } };
      if (tool === 'browser_handle_dialog') return { ok: true, content: { ok: true } };
      if (tool === 'get_link_at') return { ok: true, content: { href: fake.href } };
      if (tool === 'app_get_state') return { ok: false, error: { code: 'TOOL_FAILED', message: 'not here' } };
      return { ok: true, content: { id: 'btab_new', url: String(args.url ?? '') } };
    }),
    browserInput: vi.fn(async () => {}),
    browserStop: vi.fn(async () => {}),
    browserViewport: vi.fn(async () => {}),
    listTools: vi.fn(async () => []),
    subscribe: vi.fn(() => () => {}),
  };
});

const { default: BrowserView } = await import('./BrowserView.svelte');

const tab = (over: Partial<BrowserTab> = {}): BrowserTab => ({
  id: 'btab_1', spaceId: 's', url: 'http://127.0.0.1:5173/', title: 'Page', active: true, pane: 'primary',
  loadState: 'complete', canGoBack: false, canGoForward: false, favicon: '', ownerId: null, mode: 'web',
  contextKey: 'space:s', createdAt: 1, updatedAt: 1, ...over,
});
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const sheet = () => document.querySelector('[role="alertdialog"]') as HTMLElement | null;
const buttonIn = (el: Element, text: string) => [...el.querySelectorAll('button')].find((b) => b.textContent?.trim() === text) as HTMLButtonElement;
const used = (tool: string) => fake.calls.filter((c) => c.tool === tool).map((c) => c.args);

let app: ReturnType<typeof mount> | undefined;
beforeEach(() => {
  fake.calls = [];
  fake.onDialog = undefined;
  fake.dialog = null;
  fake.href = '';
  vi.stubGlobal('ResizeObserver', class { observe() {} disconnect() {} });
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
  document.body.innerHTML = '';
  vi.unstubAllGlobals();
});

describe('BrowserView and JavaScript dialogs', () => {
  it('shows a confirm as a sheet and answers Cancel, then a prompt with its text', async () => {
    app = mount(BrowserView, { target: document.body, props: { tab: tab() } });
    await settle();
    expect(sheet()).toBeNull();
    fake.dialog = { type: 'confirm', message: 'Delete the draft?', url: 'http://127.0.0.1:5173/', openedAt: 1 };
    fake.onDialog?.('confirm');
    await settle();
    expect(sheet()?.textContent).toContain('127.0.0.1:5173 says');
    expect(sheet()?.textContent).toContain('Delete the draft?');
    buttonIn(sheet()!, 'Cancel').click();
    await settle();
    expect(used('browser_handle_dialog')).toEqual([{ tabId: 'btab_1', accept: false }]);
    expect(sheet()).toBeNull();

    fake.dialog = { type: 'prompt', message: 'Name?', defaultPrompt: 'anon', url: 'http://127.0.0.1:5173/', openedAt: 2 };
    fake.onDialog?.('prompt');
    await settle();
    const input = sheet()!.querySelector('input') as HTMLInputElement;
    expect(input.value).toBe('anon');
    input.value = 'Ada';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await settle();
    expect(used('browser_handle_dialog').at(-1)).toEqual({ tabId: 'btab_1', accept: true, promptText: 'Ada' });
  });

  it('answers an alert with OK only, and Esc on a confirm cancels', async () => {
    app = mount(BrowserView, { target: document.body, props: { tab: tab() } });
    await settle();
    fake.dialog = { type: 'alert', message: 'Saved', url: 'http://127.0.0.1:5173/', openedAt: 1 };
    fake.onDialog?.('alert');
    await settle();
    expect([...sheet()!.querySelectorAll('button')].map((b) => b.textContent?.trim())).toEqual(['OK']);
    fake.onDialog?.('');
    await settle();
    expect(sheet()).toBeNull();
    fake.dialog = { type: 'confirm', message: 'Sure?', url: '', openedAt: 2 };
    fake.onDialog?.('confirm');
    await settle();
    sheet()!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }));
    await settle();
    expect(used('browser_handle_dialog')).toEqual([{ tabId: 'btab_1', accept: false }]);
  });
});

describe('BrowserView page menu', () => {
  it('offers back, forward, reload, and for a link copy and open in a new tab', async () => {
    app = mount(BrowserView, { target: document.body, props: { tab: tab({ canGoBack: true }) } });
    await settle();
    const canvas = document.querySelector('canvas')!;
    canvas.dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true, clientX: 10, clientY: 10 }));
    await settle();
    const menu = () => document.querySelector('[role="menu"]') as HTMLElement | null;
    const labels = () => [...menu()!.querySelectorAll('button')].map((b) => [b.textContent?.trim(), b.disabled]);
    expect(labels()).toEqual([
      ['Back', false],
      ['Forward', true],
      ['Reload', false],
    ]);
    buttonIn(menu()!, 'Reload').click();
    await settle();
    expect(menu()).toBeNull();
    expect(fake.calls.map((c) => c.tool)).toContain('refresh');
  });

  it('asks for the link under the pointer when a frame is drawn', async () => {
    // Without a drawn frame the view cannot map the point: the menu has no link entries.
    fake.href = 'http://127.0.0.1:5173/docs';
    app = mount(BrowserView, { target: document.body, props: { tab: tab() } });
    await settle();
    document.querySelector('canvas')!.dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true, clientX: 10, clientY: 10 }));
    await settle();
    expect(used('get_link_at')).toEqual([]);
    expect(document.querySelector('[role="menu"]')?.textContent).not.toContain('Copy link address');
  });
});
