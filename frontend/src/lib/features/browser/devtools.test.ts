// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { ConsoleEntry, NetworkEntry } from './devtools';

// The bridge stand-in answers the log tools from these lists.
const fake = vi.hoisted(() => ({
  console: [] as ConsoleEntry[],
  network: [] as NetworkEntry[],
  calls: [] as { tool: string; args: Record<string, unknown> }[],
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    call: vi.fn(async (tool: string, args: Record<string, unknown> = {}) => {
      fake.calls.push({ tool, args });
      if (tool === 'get_console_logs') return { ok: true, content: fake.console };
      if (tool === 'get_network_logs') return { ok: true, content: fake.network };
      return { ok: false, error: { code: 'TOOL_FAILED', message: 'not here' } };
    }),
    subscribe: vi.fn(() => () => {}),
  };
});
// The focused pane shows browser tab btab_1.
vi.mock('../../stores/appState.svelte', () => ({
  appState: {
    focusedItem: { id: 'btab_1', browser: true },
    layout: { focusedPane: 'primary' },
    shown: () => undefined,
  },
}));

const { default: ConsolePanel } = await import('./ConsolePanel.svelte');
const { default: NetworkPanel } = await import('./NetworkPanel.svelte');
const { devtools } = await import('./devtools.svelte');
const { logStart, filterConsole, networkKind, formatSize, statusText } = await import('./devtools');

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const rows = () => [...document.querySelectorAll('[data-testid="console-panel"] .row')].map((r) => r.querySelector('.msg')?.textContent);
const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim().startsWith(text)) as HTMLButtonElement;
const typeInto = (el: HTMLInputElement, text: string) => {
  el.value = text;
  el.dispatchEvent(new Event('input', { bubbles: true }));
};

const req = (over: Partial<NetworkEntry>): NetworkEntry => ({ id: 'r', method: 'GET', url: 'http://127.0.0.1/', startedAt: 0, failed: false, ...over });

let app: ReturnType<typeof mount> | undefined;
beforeEach(() => {
  fake.calls = [];
  // Page one (navigation at 100) logged two lines; page two (navigation at 200) three.
  fake.network = [
    req({ id: 'd1', url: 'http://127.0.0.1/one', resourceType: 'Document', navigation: true, startedAt: 100, status: 200 }),
    req({ id: 'd2', url: 'http://127.0.0.1/two', resourceType: 'Document', navigation: true, startedAt: 200, status: 200 }),
    req({
      id: 'f1', url: 'http://127.0.0.1/api/items?q=1', method: 'POST', resourceType: 'Fetch', startedAt: 210, endedAt: 260, durationMs: 50,
      status: 201, statusText: 'Created', mimeType: 'application/json', size: 2150, waitMs: 12,
      requestHeaders: { Authorization: '[redacted]', 'X-Trace': 'abc' }, responseHeaders: { 'Content-Type': 'application/json' },
    }),
    req({ id: 's1', url: 'http://127.0.0.1/app.js', resourceType: 'Script', startedAt: 220, status: 404 }),
  ];
  fake.console = [
    { level: 'log', text: 'old page line', ts: 110 },
    { level: 'error', text: 'old page error', ts: 120 },
    { level: 'log', text: 'obj {a: 1}', ts: 210 },
    { level: 'warn', text: 'careful now', ts: 220 },
    { level: 'debug', text: 'chatty detail', ts: 230 },
  ];
  devtools.preserve = false;
  devtools.consoleText = '';
  devtools.networkText = '';
  devtools.networkKind = 'all';
  devtools.selected = '';
  devtools.levels = new Set(['error', 'warn', 'info', 'log']);
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
  document.body.innerHTML = '';
});

describe('devtools logic', () => {
  it('starts the log at the last navigation unless preserved, and at a clear', () => {
    expect(logStart(fake.network, 0, false)).toBe(200);
    expect(logStart(fake.network, 0, true)).toBe(0);
    expect(logStart(fake.network, 500, false)).toBe(500);
    expect(logStart(fake.network, 150, true)).toBe(150);
  });
  it('filters by level and text', () => {
    const f = filterConsole(fake.console, { levels: new Set(['warn']), text: '', since: 0 });
    expect(f.map((e) => e.text)).toEqual(['careful now']);
    expect(filterConsole(fake.console, { levels: new Set(['log', 'error']), text: 'PAGE', since: 0 }).map((e) => e.text)).toEqual([
      'old page line',
      'old page error',
    ]);
  });
  it('names kinds, sizes and statuses as DevTools does', () => {
    expect(networkKind('XHR')).toBe('fetch');
    expect(networkKind('Stylesheet')).toBe('css');
    expect(formatSize(2150)).toBe('2.1 kB');
    expect(statusText(req({ failed: true, errorText: 'net::ERR_ABORTED' }))).toBe('(failed) ERR_ABORTED');
    expect(statusText(req({}))).toBe('(pending)');
  });
});

describe('ConsolePanel', () => {
  it('shows the current page, filters levels and text, preserves and clears', async () => {
    app = mount(ConsolePanel, { target: document.body });
    await settle();
    expect(fake.calls.map((c) => [c.tool, c.args.tabId])).toContainEqual(['get_console_logs', 'btab_1']);
    // Debug is off by default; the earlier page's lines are gone.
    expect(rows()).toEqual(['obj {a: 1}', 'careful now']);

    button('warn').click();
    flushSync();
    expect(rows()).toEqual(['obj {a: 1}']);
    button('warn').click();
    button('debug').click();
    flushSync();
    expect(rows()).toEqual(['obj {a: 1}', 'careful now', 'chatty detail']);

    typeInto(document.querySelector('input[aria-label="Filter console messages"]') as HTMLInputElement, 'CAREFUL');
    flushSync();
    expect(rows()).toEqual(['careful now']);
    typeInto(document.querySelector('input[aria-label="Filter console messages"]') as HTMLInputElement, '');

    const preserve = [...document.querySelectorAll('label')].find((l) => l.textContent?.includes('Preserve log'))!.querySelector('input')!;
    preserve.click();
    flushSync();
    expect(rows()).toEqual(['old page line', 'old page error', 'obj {a: 1}', 'careful now', 'chatty detail']);

    button('Clear').click();
    flushSync();
    expect(rows()).toEqual([]);
    // A line logged after the clear shows.
    fake.console = [...fake.console, { level: 'info', text: 'fresh', ts: Date.now() + 10 }];
    await devtools.refresh();
    flushSync();
    expect(rows()).toEqual(['fresh']);
  });
});

describe('NetworkPanel', () => {
  it('lists the page requests, filters by type and text, and opens a request', async () => {
    devtools.preserve = false;
    // A new tab id resets the clear (the clear above was for btab_1, so use the store fresh).
    (devtools as unknown as { cleared: Record<string, number> }).cleared = {};
    app = mount(NetworkPanel, { target: document.body });
    await settle();
    const names = () => [...document.querySelectorAll('[data-testid="network-panel"] .req .name')].map((n) => n.textContent);
    expect(names()).toEqual(['two', 'items?q=1', 'app.js']);
    button('js').click();
    flushSync();
    expect(names()).toEqual(['app.js']);
    button('all').click();
    typeInto(document.querySelector('input[aria-label="Filter requests"]') as HTMLInputElement, '201');
    flushSync();
    expect(names()).toEqual(['items?q=1']);

    (document.querySelector('[data-testid="network-panel"] .req') as HTMLButtonElement).click();
    flushSync();
    const detail = document.querySelector('[aria-label="Request details"]')!;
    expect(detail.querySelector('[data-testid="detail-status"]')?.textContent).toBe('201 Created');
    expect(detail.textContent).toContain('application/json');
    expect(detail.textContent).toContain('2.1 kB');
    expect(detail.textContent).toContain('waiting 12 ms');
    const reqHeaders = detail.querySelector('[aria-label="Request headers"]')!.textContent;
    expect(reqHeaders).toContain('X-Traceabc');
    expect(reqHeaders).toContain('Authorization[redacted]');
  });
});
