// What the window can do, as a list the command palette shows (Ctrl+Shift+P)
// and the shortcuts run: tab kinds, drawer sections, spaces, Git, Settings
// sections and recent folders. Each action names its shortcut from the
// registry (src/lib/shortcuts.ts) so the palette shows its keys.
import { appState } from '../../stores/appState.svelte';
import { browser } from '../../stores/browser.svelte';
import { git } from '../../stores/git.svelte';
import { projects } from '../../stores/projects.svelte';
import { toasts } from '../../stores/toasts.svelte';
import { ui, type DrawerTab } from '../../stores/ui.svelte';
import { shortcutKeys, type ShortcutId } from '../../shortcuts';
import type { GitBranch } from '../../bridge';
import { palette } from './palette.svelte';

/** One thing the palette offers. */
export interface PaletteAction {
  /** Stable across openings ("tab.terminal", "space.switch:<id>"). */
  id: string;
  /** What it does, as the palette lists it ("Drawer: Show Logs"). */
  label: string;
  /** Where it comes from, shown dim after the label (a folder, a branch's upstream). */
  detail?: string;
  /** Its shortcut's keys ("Ctrl+J"), if it has one. */
  keys?: string;
  run: () => unknown;
}

/** The drawer's sections, as the drawer names them. */
export const DRAWER_SECTIONS: readonly { id: DrawerTab; label: string }[] = [
  { id: 'output', label: 'Output' },
  { id: 'processes', label: 'Processes' },
  { id: 'console', label: 'Console' },
  { id: 'network', label: 'Network' },
  { id: 'logs', label: 'Logs' },
  { id: 'tools', label: 'Tools' },
  { id: 'audit', label: 'Audit' },
  { id: 'state', label: 'State' },
];

/** The Settings sections that exist (SettingsView's list). */
export const SETTINGS_SECTIONS: readonly { id: string; label: string }[] = [
  { id: 'general', label: 'General' },
  { id: 'run', label: 'Run' },
  { id: 'git', label: 'Git' },
  { id: 'agent', label: 'Agent' },
  { id: 'plugins', label: 'Plugins' },
  { id: 'storage', label: 'Storage' },
  { id: 'about', label: 'About' },
];

/** How many recent folders the palette offers. */
const RECENT_FOLDERS = 8;

/** The browser tab the focused pane shows, if it is one. */
function shownBrowserTabId(): string {
  const item = appState.focusedItem;
  return item?.browser ? item.id : '';
}

function workspace(): void {
  if (ui.view !== 'workspace') ui.view = 'workspace';
}

/** Runs what a reserved or browser-tab shortcut stands for. */
export function runShortcut(id: ShortcutId): void {
  switch (id) {
    case 'palette':
      palette.toggle();
      return;
    case 'drawer':
      ui.toggleDrawer();
      return;
    case 'newBrowserTab':
      void browser.openTab();
      return;
    case 'closeTab':
      if (ui.view === 'workspace') void appState.closeFocused();
      return;
    case 'split':
      if (ui.view === 'workspace') void appState.toggleSplit();
      return;
    case 'settings':
      ui.toggleSettings();
      return;
  }
  const tabId = shownBrowserTabId();
  if (!tabId) return;
  if (id === 'focusAddress') browser.focusAddressOf = tabId;
  else if (id === 'reload') void browser.reload(tabId);
  else if (id === 'back') void browser.back(tabId);
  else if (id === 'forward') void browser.forward(tabId);
}

const withKeys = (id: ShortcutId) => ({ keys: shortcutKeys(id) });

async function openFolder(): Promise<void> {
  const r = await projects.openFolder();
  if (r && !r.ok) toasts.push(r.error);
}

async function openRecent(cwd: string): Promise<void> {
  const r = await projects.open(cwd);
  if (!r.ok) toasts.push(r.error);
}

/**
 * Every action of the window now, in the order the palette lists them when
 * nothing is typed. branches are the active folder's local branches (read
 * when the palette opens), for "Git: Switch to …".
 */
export function paletteActions(branches: readonly GitBranch[] = []): PaletteAction[] {
  const out: PaletteAction[] = [];
  const add = (a: PaletteAction) => out.push(a);
  const pane = () => appState.layout.focusedPane;
  const openTab = (kind: 'editor' | 'terminal' | 'agent') => () => {
    workspace();
    return appState.openTab(kind, { pane: pane() });
  };

  // Tabs and panes.
  add({ id: 'tab.editor', label: 'New editor tab', run: openTab('editor') });
  add({ id: 'tab.terminal', label: 'New terminal', run: openTab('terminal') });
  add({ id: 'tab.agent', label: 'New agent tab', run: openTab('agent') });
  add({ id: 'tab.browser', label: 'New browser tab', ...withKeys('newBrowserTab'), run: () => runShortcut('newBrowserTab') });
  add({ id: 'tab.close', label: 'Close the focused tab', ...withKeys('closeTab'), run: () => runShortcut('closeTab') });
  add({ id: 'layout.split', label: appState.layout.split ? 'Close the split' : 'Split the workspace', ...withKeys('split'), run: () => runShortcut('split') });

  // The browser tab on show.
  if (shownBrowserTabId()) {
    add({ id: 'browser.address', label: 'Browser: Focus the address bar', ...withKeys('focusAddress'), run: () => runShortcut('focusAddress') });
    add({ id: 'browser.reload', label: 'Browser: Reload the page', ...withKeys('reload'), run: () => runShortcut('reload') });
    add({ id: 'browser.back', label: 'Browser: Go back', ...withKeys('back'), run: () => runShortcut('back') });
    add({ id: 'browser.forward', label: 'Browser: Go forward', ...withKeys('forward'), run: () => runShortcut('forward') });
  }

  // The drawer.
  add({ id: 'drawer.toggle', label: ui.drawerOpen ? 'Hide the drawer' : 'Show the drawer', ...withKeys('drawer'), run: () => runShortcut('drawer') });
  for (const s of DRAWER_SECTIONS) add({ id: `drawer.${s.id}`, label: `Drawer: Show ${s.label}`, run: () => ui.openDrawer(s.id) });

  // Spaces.
  add({ id: 'space.new', label: 'Spaces: New space', run: () => appState.createSpace() });
  add({ id: 'space.open', label: 'Spaces: Open folder as a space…', run: openFolder });
  for (const s of appState.spaces) {
    if (s.id === appState.activeSpaceId) continue;
    add({ id: `space.switch:${s.id}`, label: `Spaces: Switch to ${s.name}`, detail: s.cwd || undefined, run: () => appState.switchSpace(s.id) });
  }

  // Git (the active space's folder).
  if (appState.activeSpace?.cwd) {
    add({
      id: 'git.panel',
      label: 'Git: Open the Git panel',
      run: () => {
        workspace();
        return git.openGitTab();
      },
    });
    add({ id: 'git.refresh', label: 'Git: Refresh the status', run: () => git.refresh() });
    for (const b of branches) {
      if (b.current) continue;
      add({ id: `git.switch:${b.name}`, label: `Git: Switch to branch ${b.name}`, run: () => git.switchBranch(b.name) });
    }
  }

  // Settings.
  add({ id: 'settings.toggle', label: ui.view === 'settings' ? 'Close Settings' : 'Open Settings', ...withKeys('settings'), run: () => runShortcut('settings') });
  for (const s of SETTINGS_SECTIONS) add({ id: `settings.${s.id}`, label: `Settings: ${s.label}`, run: () => ui.openSettings(s.id) });

  // Recent folders (projects, newest first; the active one is open already).
  const recent = [...projects.list]
    .filter((p) => p.cwd && p.cwd !== appState.activeSpace?.cwd)
    .sort((a, b) => b.openedAt - a.openedAt)
    .slice(0, RECENT_FOLDERS);
  for (const p of recent) add({ id: `recent:${p.cwd}`, label: `Open recent: ${p.name}`, detail: p.cwd, run: () => openRecent(p.cwd) });

  return out;
}
