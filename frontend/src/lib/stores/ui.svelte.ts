/**
 * Window state that lives only in the renderer: the current view and the
 * drawer's selected panel (kept in localStorage). Whether the drawer is open
 * and its height belong to the space's layout in state.json (appState), so
 * they survive a restart and follow the space.
 */
import { appState } from './appState.svelte';

export type DrawerTab = 'output' | 'processes' | 'logs' | 'tools' | 'console' | 'network' | 'audit' | 'state';
export type View = 'workspace' | 'settings';

const KEY = 'meith.ui';

function loadTab(): DrawerTab {
  try {
    const raw = globalThis.localStorage?.getItem(KEY);
    const tab = raw ? (JSON.parse(raw) as { drawerTab?: unknown }).drawerTab : undefined;
    return tab === 'logs' || tab === 'output' || tab === 'processes' || tab === 'tools' || tab === 'console' || tab === 'network' || tab === 'audit' || tab === 'state'
      ? tab
      : 'logs';
  } catch {
    return 'logs';
  }
}

class UiStore {
  view = $state<View>('workspace');
  drawerTab = $state<DrawerTab>(loadTab());

  /** Whether the active space's drawer is open. */
  get drawerOpen(): boolean {
    return appState.layout.drawerOpen;
  }

  toggleDrawer(): void {
    void appState.toggleDrawer();
  }

  openDrawer(tab: DrawerTab): void {
    this.drawerTab = tab;
    this.save();
    if (!appState.layout.drawerOpen) void appState.setLayout({ drawerOpen: true });
  }

  /**
   * An agent session another view asked to open (the Audit panel's
   * click-through): the agent tab with this id selects it and clears it.
   */
  agentSessionRequest = $state<{ tabId: string; sessionId: string } | null>(null);

  /** The Settings section to show when Settings opens next ("" keeps the last one). */
  settingsSection = $state('');

  toggleSettings(): void {
    this.view = this.view === 'settings' ? 'workspace' : 'settings';
  }

  /** Opens Settings at a section (e.g. "agent"). */
  openSettings(section: string): void {
    this.settingsSection = section;
    this.view = 'settings';
  }

  private save(): void {
    try {
      globalThis.localStorage?.setItem(KEY, JSON.stringify({ drawerTab: this.drawerTab }));
    } catch {
      // storage unavailable: keep the choice for this session only
    }
  }
}

export const ui = new UiStore();
