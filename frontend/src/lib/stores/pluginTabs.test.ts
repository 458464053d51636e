// Plugin tabs (issue 19): which browser tabs host a plugin, and the name the
// strip gives them.
import { describe, expect, it } from 'vitest';
import type { BrowserTab } from '../bridge';
import { isPluginTab, pluginIdOf, pluginTabTitle } from './pluginTabs';
import { paneItems } from './appState.svelte';

const tab = (over: Partial<BrowserTab> & { pluginId?: string } = {}): BrowserTab =>
  ({ id: 'btab_1', spaceId: 's', url: 'http://x.plugins.localhost:4100/index.html', title: 'index.html', mode: 'web', contextKey: 'space:s', pane: 'primary', createdAt: 1, ...over }) as BrowserTab;
const installed = [{ id: 'com.example.board', name: 'Deploy board' }];

describe('plugin tabs', () => {
  it('knows a plugin tab by its pluginId, or by its mode and plugin browser context', () => {
    expect(pluginIdOf(tab({ mode: 'plugin', pluginId: 'com.example.board' }))).toBe('com.example.board');
    expect(pluginIdOf(tab({ mode: 'plugin', contextKey: 'plugin:com.example.board' }))).toBe('com.example.board');
    expect(pluginIdOf(tab())).toBe('');
    expect(pluginIdOf(tab({ contextKey: 'plugin:com.example.board' }))).toBe(''); // a web tab says nothing
    expect(isPluginTab(tab({ mode: 'plugin' }))).toBe(true);
    expect(isPluginTab(tab({ pluginId: 'com.example.board' }))).toBe(true);
    expect(isPluginTab(tab())).toBe(false);
    expect(isPluginTab(undefined)).toBe(false);
  });

  it("names a plugin tab after its plugin, never after what its page calls itself", () => {
    expect(pluginTabTitle(tab({ mode: 'plugin', pluginId: 'com.example.board', title: 'meith window' }), installed)).toBe('Deploy board');
    expect(pluginTabTitle(tab({ mode: 'plugin', pluginId: 'com.example.gone', title: 'Old page' }), installed)).toBe('com.example.gone');
    expect(pluginTabTitle(tab({ mode: 'plugin', title: 'Old page' }), installed)).toBe('Plugin');
    const items = paneItems([tab({ mode: 'plugin', pluginId: 'com.example.board' }), tab({ id: 'btab_2', title: 'Shop', createdAt: 2 })], [], 'primary', false, installed);
    expect(items.map((i) => i.title)).toEqual(['Deploy board', 'Shop']);
  });
});
