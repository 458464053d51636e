/**
 * Browser tabs as the window drives them: open (Ctrl+T), navigate, back,
 * forward, reload and close go through the browser tools; stop and the live
 * view's input and viewport go through the bound methods. The tab records
 * themselves (url, title, favicon, loadState, canGoBack/Forward) live in the
 * app state and arrive with its "state_changed" re-reads.
 */
import { browserStop, type BrowserTab } from '../bridge';
import { appState } from './appState.svelte';
import { callForAction, errorText, toasts } from './toasts.svelte';
import { ui } from './ui.svelte';

/** The page a new tab opens (the address bar then takes the focus). */
export const NEW_TAB_URL = 'about:blank';

class BrowserStore {
  /** The tab whose address bar takes the focus when its view shows ('' for none). */
  focusAddressOf = $state('');

  /** Runs a browser tool; failures become toasts and resolve undefined. Re-reads the state after success. */
  private async act<T>(tool: string, args: Record<string, unknown>): Promise<T | undefined> {
    const r = await callForAction<T>(tool, args);
    if (!r) return undefined;
    await appState.refresh();
    return r.content;
  }


  /**
   * Opens a browser tab in the active space (or in spaceId), shows it in its
   * pane and, for a blank page, puts the focus in its address bar (Ctrl+T).
   * A tab opened in another space waits there, unshown.
   */
  async openTab(url: string = NEW_TAB_URL, spaceId = ''): Promise<BrowserTab | undefined> {
    const inActive = !spaceId || spaceId === appState.activeSpaceId;
    if (inActive && ui.view !== 'workspace') ui.view = 'workspace';
    const args: Record<string, unknown> = { url };
    const space = spaceId || appState.activeSpaceId;
    if (space) args.spaceId = space;
    const tab = await this.act<BrowserTab>('open_browser_tab', args);
    if (!tab || !inActive) return tab;
    if (url === NEW_TAB_URL) this.focusAddressOf = tab.id;
    const item = [...appState.primaryItems, ...appState.secondaryItems].find((i) => i.id === tab.id);
    if (item && appState.shown(item.pane)?.id !== tab.id) await appState.showItem(item);
    return tab;
  }

  /** Loads what the user typed; the backend infers the scheme and returns the normalized URL. */
  navigate(tabId: string, url: string): Promise<BrowserTab | undefined> {
    return this.act<BrowserTab>('navigate', { tabId, url });
  }

  back(tabId: string): Promise<BrowserTab | undefined> {
    return this.act<BrowserTab>('go_back', { tabId });
  }

  forward(tabId: string): Promise<BrowserTab | undefined> {
    return this.act<BrowserTab>('go_forward', { tabId });
  }

  reload(tabId: string): Promise<BrowserTab | undefined> {
    return this.act<BrowserTab>('refresh', { tabId });
  }

  /** Stops loading (the reload button while a page loads). */
  async stop(tabId: string): Promise<void> {
    try {
      await browserStop(tabId);
    } catch (err) {
      toasts.push(errorText(err));
    }
  }

  async close(tabId: string): Promise<boolean> {
    const r = await this.act<{ closed: boolean }>('close_browser_tab', { tabId });
    return r?.closed ?? false;
  }

  /** Takes the address-bar focus request of tabId (true once). */
  takeFocusRequest(tabId: string): boolean {
    if (this.focusAddressOf !== tabId) return false;
    this.focusAddressOf = '';
    return true;
  }
}

export const browser = new BrowserStore();
