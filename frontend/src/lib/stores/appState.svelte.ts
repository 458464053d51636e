import {
  call,
  Topics,
  type AppSettings,
  type AppState,
  type BrowserTab,
  type Layout,
  type Pane,
  type Space,
  type WorkspaceTab,
  type WorkspaceTabKind,
} from '../bridge';
import { liveStore, LiveModel } from './live';
import { isPluginTab, pluginTabTitle, type NamedPlugin } from './pluginTabs';
import { callForAction, errorText, resultError, toasts } from './toasts.svelte';

/** The layout of a space that has none yet (backend/state DefaultLayout). */
export const DEFAULT_LAYOUT: Layout = Object.freeze({
  split: false,
  splitRatio: 0.5,
  focusedPane: 'primary',
  primaryTabId: '',
  secondaryTabId: '',
  drawerOpen: false,
  drawerHeight: 260,
});

/** Limits of a layout (backend/state/layout.go). */
export const LAYOUT_LIMITS = { minRatio: 0.15, maxRatio: 0.85, minDrawer: 120, maxDrawer: 800 } as const;

/** A tab as a pane's strip shows it: a workspace tab or a browser tab. */
export type PaneItem =
  | { id: string; browser: false; title: string; detail: string; pane: Pane; tab: WorkspaceTab }
  | { id: string; browser: true; title: string; detail: string; pane: Pane; tab: BrowserTab };

/** The colors offered when recoloring a space (backend/state Palette). */
export const PALETTE = ['#6366f1', '#10b981', '#f59e0b', '#ef4444', '#0ea5e9', '#a855f7'] as const;

/**
 * The app state (spaces, workspace tabs, settings) as the Go side keeps it in
 * state.json. The store reads it with app_get_state, re-reads it whenever a
 * "state_changed" hint arrives (from any caller, the CLI included), and
 * performs every change as a tool call. Failed actions become toasts and
 * resolve to undefined; they never throw.
 */
export class AppStateStore extends LiveModel {
  state = $state<AppState | null>(null);
  /** True until the first read finished (ok or not). */
  loading = $state(true);
  /** Why the last read failed ('' when it did not). */
  error = $state('');

  spaces = $derived<Space[]>(this.state?.spaces ?? []);
  activeSpaceId = $derived(this.state?.activeSpaceId ?? '');
  activeSpace = $derived<Space | undefined>(this.spaces.find((s) => s.id === this.activeSpaceId));
  /** Workspace tabs of the active space, in order. */
  tabs = $derived<WorkspaceTab[]>((this.state?.workspaceTabs ?? []).filter((t) => t.spaceId === this.activeSpaceId));
  /** Browser tabs of the active space, in order. */
  browserTabs = $derived<BrowserTab[]>((this.state?.browserTabs ?? []).filter((t) => t.spaceId === this.activeSpaceId));
  /** The active space's layout. */
  layout = $derived<Layout>({ ...DEFAULT_LAYOUT, ...(this.activeSpace?.layout ?? {}) });
  /**
   * The tabs of each pane of the active space, in strip order (the order
   * they were opened). Without a split every tab is on the left, also those
   * the backend has not moved back yet (Ctrl+\\ patches the layout first).
   */
  primaryItems = $derived<PaneItem[]>(paneItems(this.browserTabs, this.tabs, 'primary', !this.layout.split, this.state?.plugins ?? []));
  secondaryItems = $derived<PaneItem[]>(this.layout.split ? paneItems(this.browserTabs, this.tabs, 'secondary', false, this.state?.plugins ?? []) : []);
  /** The tab the focused pane shows: what Ctrl+W closes. */
  focusedItem = $derived<PaneItem | undefined>(this.shown(this.layout.focusedPane));
  /** The active workspace tab of the active space. */
  activeTab = $derived<WorkspaceTab | undefined>(this.tabs.find((t) => t.active) ?? this.tabs[this.tabs.length - 1]);
  settings = $derived<AppSettings | null>(this.state?.settings ?? null);
  workspaceTabCount = $derived(this.state?.workspaceTabs.length ?? 0);
  browserTabCount = $derived(this.state?.browserTabs.length ?? 0);

  /** Follows state_changed: start, stop and refresh (LiveModel) re-read the state. */
  protected readonly hints = liveStore(Topics.stateChanged, () => this.load(), { onError: (err) => (this.error = errorText(err)) });

  private async load(): Promise<void> {
    try {
      const r = await call<AppState>('app_get_state');
      if (r.ok && r.content) {
        this.state = r.content;
        this.error = '';
      } else {
        this.error = resultError(r, 'app_get_state');
      }
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loading = false;
    }
  }

  /** Runs a tool; on failure shows a toast and resolves undefined. Re-reads the state after success. */
  /** The last state change sent: the next one waits for it. */
  private pending: Promise<unknown> = Promise.resolve();

  /**
   * Runs a state-changing tool and re-reads the state. Changes reach the
   * backend one after another, in the order the user made them (the binding
   * runs calls concurrently: a pane focused on mouse down must not land after
   * the tab moved by the drop that followed).
   */
  private async act<T>(tool: string, args: Record<string, unknown>): Promise<T | undefined> {
    const call = this.pending.then(() => callForAction<T>(tool, args));
    this.pending = call.catch(() => undefined);
    const r = await call;
    if (!r) return undefined;
    await this.refresh();
    return r.content;
  }


  /** Creates a space (active afterwards). Without a name: "Workspace N". */
  createSpace(name?: string, opts: { color?: string; cwd?: string } = {}): Promise<Space | undefined> {
    const args: Record<string, unknown> = { name: name?.trim() || this.nextSpaceName() };
    if (opts.color) args.color = opts.color;
    if (opts.cwd) args.cwd = opts.cwd;
    return this.act<Space>('create_space', args);
  }

  renameSpace(spaceId: string, name: string): Promise<Space | undefined> {
    const trimmed = name.trim();
    if (!trimmed) {
      toasts.push('A space needs a name.');
      return Promise.resolve(undefined);
    }
    return this.act<Space>('update_space', { spaceId, name: trimmed });
  }

  recolorSpace(spaceId: string, color: string): Promise<Space | undefined> {
    return this.act<Space>('update_space', { spaceId, color });
  }

  switchSpace(spaceId: string): Promise<Space | undefined> {
    if (spaceId === this.activeSpaceId) return Promise.resolve(this.activeSpace);
    return this.act<Space>('switch_space', { spaceId });
  }

  async closeSpace(spaceId: string): Promise<boolean> {
    const r = await this.act<{ closed: boolean }>('close_space', { spaceId });
    return r?.closed ?? false;
  }

  /** Opens a workspace tab in the active space (cwd: the space's folder, else "~"), in pane or the focused pane. */
  openTab(
    kind: WorkspaceTabKind = 'editor',
    opts: { title?: string; cwd?: string; pane?: Pane } = {},
  ): Promise<WorkspaceTab | undefined> {
    const cwd = opts.cwd || this.activeSpace?.cwd || '~';
    const title = opts.title || defaultTitle(kind, cwd);
    const args: Record<string, unknown> = { title, cwd, kind };
    if (this.activeSpaceId) args.spaceId = this.activeSpaceId;
    if (opts.pane) args.pane = opts.pane;
    return this.act<WorkspaceTab>('open_workspace_tab', args);
  }

  focusTab(tabId: string): Promise<WorkspaceTab | undefined> {
    return this.act<WorkspaceTab>('focus_workspace_tab', { tabId });
  }

  /** The item a pane shows (undefined for an empty pane). */
  shown(pane: Pane): PaneItem | undefined {
    const items = pane === 'secondary' ? this.secondaryItems : this.primaryItems;
    const id = pane === 'secondary' ? this.layout.secondaryTabId : this.layout.primaryTabId;
    return items.find((i) => i.id === id) ?? items[0];
  }

  /** Shows a tab in its pane and focuses that pane. */
  showItem(item: PaneItem): Promise<unknown> {
    if (item.browser) return this.act<Space>('move_tab', { tabId: item.id, pane: item.pane });
    return this.focusTab(item.id);
  }

  /** Moves a tab to a pane (splitting or unsplitting as needed) and shows it there. */
  moveTab(tabId: string, pane: Pane): Promise<Space | undefined> {
    return this.act<Space>('move_tab', { tabId, pane });
  }

  /** Closes a tab. Browser tabs close with the browser feature's close_browser_tab. */
  async closeItem(item: PaneItem): Promise<boolean> {
    if (!item.browser) return this.closeTab(item.id);
    const r = await this.act<{ closed: boolean }>('close_browser_tab', { tabId: item.id });
    return r?.closed ?? false;
  }

  /**
   * Ctrl+W: closes the tab the focused pane shows — as it is once the
   * changes the user made before (a drop that moved a tab, a pane focused
   * by a click) have reached the backend and been read back, not as the
   * page showed it when the key went down.
   */
  async closeFocused(): Promise<boolean> {
    await this.settled();
    const item = this.focusedItem;
    return item ? this.closeItem(item) : false;
  }

  /**
   * Resolves once the state changes sent before have reached the backend
   * and the state has been read back since. A key that acts on what the
   * page shows (Ctrl+W, Ctrl+\) waits for it, so it acts on the user's
   * latest change, not on a state that change has not replaced yet.
   */
  private async settled(): Promise<void> {
    await this.pending;
    await this.refresh();
  }

  /** Focuses a pane (a no-op when it has the focus already). */
  focusPane(pane: Pane): Promise<Space | undefined> {
    if (this.layout.focusedPane === pane) return Promise.resolve(this.activeSpace);
    return this.setLayout({ focusedPane: pane });
  }

  /**
   * Changes the active space's layout. The change shows at once (the state
   * is patched locally) and is then made by set_space_layout; the re-read
   * that follows replaces the local patch with what the backend kept.
   */
  setLayout(patch: Partial<Pick<Layout, 'split' | 'splitRatio' | 'focusedPane' | 'drawerOpen' | 'drawerHeight'>>): Promise<Space | undefined> {
    const space = this.state?.spaces.find((s) => s.id === this.activeSpaceId);
    if (space) space.layout = { ...DEFAULT_LAYOUT, ...space.layout, ...patch };
    return this.act<Space>('set_space_layout', { spaceId: this.activeSpaceId, ...patch });
  }

  /**
   * Ctrl+\: closes the split, or splits: with two or more tabs the focused
   * tab moves to the new right pane; with fewer an agent tab opens there.
   */
  async toggleSplit(): Promise<void> {
    await this.settled();
    if (this.layout.split) {
      await this.setLayout({ split: false });
      return;
    }
    const items = this.primaryItems;
    const movable = [this.shown('primary'), ...items].find((i) => i && !i.browser);
    if (items.length >= 2 && movable) {
      await this.moveTab(movable.id, 'secondary');
      return;
    }
    await this.openTab('agent', { pane: 'secondary' });
  }

  toggleDrawer(): Promise<Space | undefined> {
    return this.setLayout({ drawerOpen: !this.layout.drawerOpen });
  }

  async closeTab(tabId: string): Promise<boolean> {
    const r = await this.act<{ closed: boolean }>('close_workspace_tab', { tabId });
    return r?.closed ?? false;
  }

  patchSettings(patch: Partial<AppSettings>): Promise<AppSettings | undefined> {
    return this.act<{ settings: AppSettings }>('set_app_settings', { settings: patch }).then((r) => r?.settings);
  }

  private nextSpaceName(): string {
    const taken = new Set(this.spaces.map((s) => s.name));
    let n = this.spaces.length + 1;
    while (taken.has(`Workspace ${n}`)) n++;
    return `Workspace ${n}`;
  }
}

/**
 * The tabs of one pane in strip order: browser and workspace tabs in the
 * order they were opened (a new tab of either kind comes last). With
 * everyPane, the tabs of both panes are listed as pane's: the left strip
 * of a space whose split has just been closed shows the right pane's tabs
 * at once, in their final places, instead of adding them when the
 * backend's answer is read back. A plugin tab is titled with its plugin's
 * name (plugins: the installed ones).
 */
export function paneItems(browser: BrowserTab[], workspace: WorkspaceTab[], pane: Pane, everyPane = false, plugins: readonly NamedPlugin[] = []): PaneItem[] {
  const out: (PaneItem & { at: number })[] = [];
  for (const t of browser) {
    // A plugin tab is named after its plugin, whatever its page's title says.
    const title = isPluginTab(t) ? pluginTabTitle(t, plugins) : t.title || t.url;
    if (everyPane || (t.pane ?? 'primary') === pane) out.push({ id: t.id, browser: true, title, detail: t.url, pane, tab: t, at: t.createdAt ?? 0 });
  }
  for (const t of workspace) {
    if (everyPane || (t.pane ?? 'primary') === pane) out.push({ id: t.id, browser: false, title: t.title, detail: t.cwd, pane, tab: t, at: t.createdAt ?? 0 });
  }
  // A stable sort: tabs opened in the same millisecond keep browser-first order.
  out.sort((a, b) => a.at - b.at);
  return out.map(({ at: _at, ...item }) => item as PaneItem);
}

function defaultTitle(kind: WorkspaceTabKind, cwd: string): string {
  const base = cwd.replace(/\/+$/, '').split('/').pop() || cwd;
  const label = kind.charAt(0).toUpperCase() + kind.slice(1);
  return base && base !== '~' ? `${label} · ${base}` : label;
}

/** Initials of a space name for its avatar: "My project" → "MP", "meith" → "ME". */
export function initials(name: string): string {
  const words = name.trim().split(/[\s_\-./]+/).filter(Boolean);
  if (words.length === 0) return '?';
  if (words.length === 1) return [...words[0]].slice(0, 2).join('').toUpperCase();
  return ([...words[0]][0] + [...words[1]][0]).toUpperCase();
}

export const appState = new AppStateStore();
