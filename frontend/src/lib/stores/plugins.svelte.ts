/**
 * The installed plugins (list_plugins) for Settings → Plugins. The store
 * reads them when the section starts it and re-reads on the "state_changed"
 * hints of kind "plugins" (a plugin installed, approved, enabled or removed
 * by any caller, the CLI included), and after its own changes. Its actions
 * resolve with the tool's error text instead of throwing, so the section can
 * show it next to the plugin (or the install form) that failed.
 */
import { call, Topics, type BrowserTab, type StateChangedPayload, type ToolResult } from '../bridge';
import { pluginErrorText, type GrantSelection, type InstallSource, type Plugin } from '../features/settings/plugins';
import { appState } from './appState.svelte';
import { liveStore, LiveModel } from './live';
import { errorText } from './toasts.svelte';
import { ui } from './ui.svelte';

/** An action's outcome: its content and the notes the tool added, or the error to show. */
export type PluginOutcome<T> = { ok: true; value: T; notes: string[] } | { ok: false; error: string };

export class PluginsStore extends LiveModel {
  list = $state<Plugin[]>([]);
  /** Why the last read failed ('' when it did not). */
  error = $state('');
  loaded = $state(false);

  /** Follows the state_changed hints about plugins (start, stop and refresh: LiveModel). */
  protected readonly hints = liveStore<StateChangedPayload>(Topics.stateChanged, () => this.load(), {
    accept: (p) => p?.kind === 'plugins',
    onError: (err) => (this.error = errorText(err)),
  });

  byId(id: string): Plugin | undefined {
    return this.list.find((p) => p.id === id);
  }

  private async load(): Promise<void> {
    try {
      const r = await call('list_plugins');
      if (r.ok && r.content) {
        this.list = r.content.plugins ?? [];
        this.error = '';
      } else {
        this.error = pluginErrorText(r, 'list the plugins');
      }
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loaded = true;
    }
  }

  /** Runs a plugin tool: its content and notes (diagnostics), or its error in words. */
  private async run<T>(tool: string, args: Record<string, unknown>, action: string): Promise<PluginOutcome<T>> {
    let r: ToolResult<T>;
    try {
      r = await call<T>(tool, args);
    } catch (err) {
      return { ok: false, error: errorText(err) };
    }
    if (!r.ok || r.content === undefined) return { ok: false, error: pluginErrorText(r, action) };
    const notes = (r.diagnostics ?? []).filter((d) => d.level !== 'error' && d.message).map((d) => d.message);
    return { ok: true, value: r.content, notes };
  }

  /** Puts a changed record in the list at once (the hint's re-read follows). */
  private put(p: Plugin): void {
    const i = this.list.findIndex((x) => x.id === p.id);
    this.list = i < 0 ? [...this.list, p] : this.list.map((x, j) => (j === i ? p : x));
  }

  /** Installs (or re-installs) from exactly one source; the plugin starts disabled with nothing approved. */
  async install(source: InstallSource): Promise<PluginOutcome<Plugin>> {
    const r = await this.run<{ plugin: Plugin }>('install_plugin', { ...source }, 'install the plugin');
    if (!r.ok) return r;
    this.put(r.value.plugin);
    void this.refresh();
    return { ...r, value: r.value.plugin };
  }

  /** Approves a selection of what the plugin requested (replacing the earlier approval). */
  async approve(id: string, s: GrantSelection): Promise<PluginOutcome<Plugin>> {
    const r = await this.run<{ plugin: Plugin }>('approve_plugin_grants', { pluginId: id, capabilities: s.capabilities, apis: s.apis }, 'approve');
    if (!r.ok) return r;
    this.put(r.value.plugin);
    void this.refresh();
    return { ...r, value: r.value.plugin };
  }

  /** Enables (every requested API scope must be approved) or disables a plugin. */
  async setEnabled(id: string, enabled: boolean): Promise<PluginOutcome<Plugin>> {
    const r = await this.run<{ plugin: Plugin }>('set_plugin_enabled', { pluginId: id, enabled }, enabled ? 'enable it' : 'disable it');
    if (!r.ok) return r;
    this.put(r.value.plugin);
    void this.refresh();
    return { ...r, value: r.value.plugin };
  }

  /** Uninstalls a plugin; its open tabs lose their access. */
  async uninstall(id: string): Promise<PluginOutcome<string>> {
    const r = await this.run<{ uninstalled: string }>('uninstall_plugin', { pluginId: id }, 'uninstall it');
    if (!r.ok) return r;
    this.list = this.list.filter((p) => p.id !== id);
    void this.refresh();
    return { ...r, value: r.value.uninstalled };
  }

  /**
   * Opens a tab hosting the plugin in the active space and shows it: the
   * window goes to the workspace with the tab in its pane.
   */
  async openTab(id: string): Promise<PluginOutcome<BrowserTab>> {
    const args: Record<string, unknown> = { pluginId: id };
    if (appState.activeSpaceId) args.spaceId = appState.activeSpaceId;
    const r = await this.run<{ tab: BrowserTab }>('open_plugin_tab', args, 'open it');
    if (!r.ok) return r;
    await appState.refresh();
    const tab = r.value.tab;
    if (!tab.spaceId || tab.spaceId === appState.activeSpaceId) {
      ui.view = 'workspace';
      const item = [...appState.primaryItems, ...appState.secondaryItems].find((i) => i.id === tab.id);
      if (item && appState.shown(item.pane)?.id !== tab.id) await appState.showItem(item);
    }
    return { ...r, value: tab };
  }
}

export const plugins = new PluginsStore();
