// Plugin tabs (issue 19): browser tabs meith opened for a plugin (mode
// "plugin", BrowserTab.pluginId). The window shows them with the plugin's
// name and a puzzle-piece icon, and their address cannot be edited: the
// page's bridge lives only while it stays on the plugin's own pages.
import type { BrowserTab } from '../bridge';

/** What the window needs of an installed plugin to name its tabs. */
export interface NamedPlugin {
  id: string;
  name: string;
}

const CONTEXT_PREFIX = 'plugin:';

/**
 * The id of the plugin a browser tab hosts ('' for a web tab): its
 * pluginId, else (a record without one) the plugin of its browser context
 * "plugin:<id>".
 */
export function pluginIdOf(tab: BrowserTab | null | undefined): string {
  if (!tab) return '';
  const id = (tab as BrowserTab & { pluginId?: string }).pluginId;
  if (id) return id;
  if (tab.mode === 'plugin' && tab.contextKey?.startsWith(CONTEXT_PREFIX)) return tab.contextKey.slice(CONTEXT_PREFIX.length);
  return '';
}

/** True for a tab meith opened for a plugin. */
export function isPluginTab(tab: BrowserTab | null | undefined): boolean {
  return !!tab && (tab.mode === 'plugin' || pluginIdOf(tab) !== '');
}

/**
 * The name a plugin tab shows: the plugin's name from the installed
 * plugins, else its id (a plugin uninstalled meanwhile); never what its
 * page calls itself.
 */
export function pluginTabTitle(tab: BrowserTab, plugins: readonly NamedPlugin[] | null | undefined): string {
  const id = pluginIdOf(tab);
  const p = id ? plugins?.find((x) => x.id === id) : undefined;
  return p?.name || id || 'Plugin';
}
