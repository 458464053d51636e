// @vitest-environment happy-dom
// Settings → About (issue 18): the build's facts from app_about, copy
// buttons for the user data and socket paths, and the licences of the
// bundled libraries collapsed behind a summary with a filter.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';

const fake = vi.hoisted(() => ({
  about: {} as Record<string, unknown>,
  fail: false,
  calls: 0,
}));
vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    call: vi.fn(async (tool: string) => {
      if (tool !== 'app_about') return { ok: false, error: { code: 'TOOL_NOT_FOUND', message: tool } };
      fake.calls++;
      if (fake.fail) return { ok: false, error: { code: 'TOOL_FAILED', message: 'the licence table is broken' } };
      return { ok: true, content: JSON.parse(JSON.stringify(fake.about)) };
    }),
    subscribe: vi.fn(() => () => {}),
    listTools: vi.fn(async () => []),
    pendingApprovals: vi.fn(async () => []),
  };
});

const { default: AboutSection } = await import('./AboutSection.svelte');
const { toasts } = await import('../../stores/toasts.svelte');

const settle = async () => {
  for (let i = 0; i < 6; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const facts = () => {
  const out: Record<string, string> = {};
  const dl = document.querySelector('[data-testid="about-facts"]')!;
  for (const dt of dl.querySelectorAll('dt')) {
    const dd = dt.nextElementSibling as HTMLElement;
    out[dt.textContent!.trim()] = dd.querySelector('code')?.textContent?.trim() ?? dd.textContent!.trim();
  }
  return out;
};
const rows = () => [...document.querySelectorAll('[data-testid="about-licences"] tbody tr')].map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent!.trim()));
const setFilter = async (text: string) => {
  const input = document.querySelector('input[aria-label="Filter the licences"]') as HTMLInputElement;
  input.value = text;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  await settle();
};

const licences = [
  { name: 'Go standard library', version: 'go1.26.8', licence: 'BSD-3-Clause' },
  { name: 'github.com/go-git/go-git/v5', version: 'v5.19.3', licence: 'Apache-2.0' },
  { name: 'github.com/wailsapp/wails/v2', version: 'v2.16.0', licence: 'MIT' },
  { name: '@codemirror/view', version: '6.43.15', licence: 'MIT' },
];

let app: ReturnType<typeof mount> | undefined;
let clipboard: string[];
beforeEach(() => {
  document.body.innerHTML = '';
  fake.fail = false;
  fake.calls = 0;
  fake.about = {
    version: '0.1.0-dev', commit: '507abc5dc9b4', buildDate: '2026-12-02T05:33:20Z', dirty: true, goVersion: 'go1.26.8',
    wailsVersion: 'v2.16.0', webkitVersion: '2.50.6', chromiumVersion: 'Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)',
    userData: '/home/me/.local/share/meith', socketPath: '/home/me/.local/share/meith/tool.sock', licences,
  };
  clipboard = [];
  Object.defineProperty(navigator, 'clipboard', {
    configurable: true,
    value: { writeText: async (t: string) => void clipboard.push(t) },
  });
  toasts.clear();
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
});

const open = async () => {
  app = mount(AboutSection, { target: document.body });
  await settle();
};

describe('Settings → About', () => {
  it('shows every fact of the build, marks a development build and uncommitted changes', async () => {
    await open();
    expect(facts()).toMatchObject({
      Version: expect.stringContaining('0.1.0-dev'),
      Commit: '507abc5dc9b4',
      'Build date': '2026-12-02T05:33:20Z',
      Go: 'go1.26.8',
      Wails: 'v2.16.0',
      WebKitGTK: '2.50.6',
      Chromium: 'Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)',
      'User data': '/home/me/.local/share/meith',
      Socket: '/home/me/.local/share/meith/tool.sock',
    });
    const text = document.body.textContent!;
    expect(text).toContain('development build');
    expect(text).toContain('uncommitted changes');
  });

  it('says neither for a clean release build', async () => {
    fake.about = { ...fake.about, version: '0.1.0', dirty: false };
    await open();
    const text = document.body.textContent!;
    expect(text).not.toContain('development build');
    expect(text).not.toContain('uncommitted changes');
  });

  it('copies the user data and socket paths', async () => {
    await open();
    for (const label of ['user data', 'socket']) {
      (document.querySelector(`button[aria-label="Copy the ${label} path"]`) as HTMLButtonElement).click();
      await settle();
    }
    expect(clipboard).toEqual(['/home/me/.local/share/meith', '/home/me/.local/share/meith/tool.sock']);
    expect((document.querySelector('button[aria-label="Copy the socket path"]') as HTMLElement).textContent!.trim()).toBe('Copied');
  });

  it('says when the copy fails', async () => {
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: async () => { throw new Error('denied'); } },
    });
    await open();
    (document.querySelector('button[aria-label="Copy the user data path"]') as HTMLButtonElement).click();
    await settle();
    expect(toasts.list.map((t) => t.text).join(' ')).toContain('Copy failed');
  });

  it('keeps the licences collapsed, counts them, and filters by name or licence', async () => {
    await open();
    const details = document.querySelector('[data-testid="about-licences"]') as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.querySelector('summary')!.textContent).toContain('(4)');
    expect(rows()).toHaveLength(4);
    await setFilter('apache');
    expect(rows()).toEqual([['github.com/go-git/go-git/v5', 'v5.19.3', 'Apache-2.0']]);
    await setFilter('CodeMirror');
    expect(rows().map((r) => r[0])).toEqual(['@codemirror/view']);
    await setFilter('no-such-library');
    expect(rows()).toEqual([]);
    expect(details.textContent).toContain('No library matches');
    await setFilter('');
    expect(rows()).toHaveLength(4);
  });

  it('shows a failure with a retry', async () => {
    fake.fail = true;
    await open();
    const alert = document.querySelector('[role="alert"]')!;
    expect(alert.textContent!.toLowerCase()).toContain('the licence table is broken');
    fake.fail = false;
    (alert.querySelector('button') as HTMLButtonElement).click();
    await settle();
    expect(fake.calls).toBe(2);
    expect(facts().Go).toBe('go1.26.8');
  });
});
