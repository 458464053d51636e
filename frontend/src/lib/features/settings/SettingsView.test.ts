// @vitest-environment happy-dom
// Settings (issue 17 item 16 and its copy): only sections that do
// something are listed; the page scrolls at the window's edge with its
// content in a column inside; the text names no internal tool.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import type { AppState } from '../../bridge';
import { defaultSettings } from '../../testing/settings';

vi.mock('../../bridge', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bridge')>();
  return {
    ...real,
    call: vi.fn(async (tool: string) => {
      if (tool === 'agent_get_config') return { ok: true, content: { config: { agent: '', autoAccept: false }, agents: [] } };
      return { ok: true, content: {} };
    }),
    subscribe: vi.fn(() => () => {}),
    listTools: vi.fn(async () => []),
    pendingApprovals: vi.fn(async () => []),
  };
});

const { default: SettingsView } = await import('./SettingsView.svelte');
const { appState } = await import('../../stores/appState.svelte');

const settle = async () => {
  for (let i = 0; i < 6; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const nav = () => [...document.querySelectorAll('nav[aria-label="Settings sections"] button')].map((b) => b.textContent!.trim());
const open = async (label: string) => {
  const b = [...document.querySelectorAll('nav button')].find((x) => x.textContent!.trim() === label) as HTMLButtonElement;
  b.click();
  await settle();
};
/** An internal tool name: lower-case words joined by underscores (git_commit, agent_probe). */
const TOOL_NAME = /\b[a-z]+(?:_[a-z]+)+\b/;

let app: ReturnType<typeof mount> | undefined;
beforeEach(async () => {
  document.body.innerHTML = '';
  appState.state = { spaces: [], activeSpaceId: '', workspaceTabs: [], browserTabs: [], settings: defaultSettings() } as unknown as AppState;
  app = mount(SettingsView, { target: document.body });
  await settle();
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
  appState.state = null;
});

describe('SettingsView', () => {
  it('lists only the sections that do something', () => {
    expect(nav()).toEqual(['General', 'Run', 'Git', 'Agent', 'Plugins', 'Storage', 'About', '← Back (Esc)']);
  });

  it('scrolls the whole content area (the scrollbar at the window edge) with a column inside', () => {
    const scroller = document.querySelector('[data-testid="settings-scroll"]')!;
    expect(scroller).not.toBeNull();
    expect(scroller.parentElement?.classList.contains('settings')).toBe(true);
    expect(scroller.querySelector(':scope > .page h2')?.textContent).toBe('General');
  });

  it('names no internal tool in its text', async () => {
    for (const section of ['General', 'Git', 'Agent', 'Plugins', 'Storage', 'About']) {
      await open(section);
      const text = document.querySelector('[data-testid="settings-scroll"]')!.textContent!;
      expect({ section, tool: TOOL_NAME.exec(text)?.[0] ?? null }).toEqual({ section, tool: null });
    }
  });
});
