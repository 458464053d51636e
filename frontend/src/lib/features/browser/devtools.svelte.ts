/**
 * The devtools panels' store: the console and network logs of the active
 * browser tab (the one the focused pane shows, else the other pane's),
 * re-read through get_console_logs and get_network_logs about once a second
 * while a panel is open (the Go side keeps bounded rings; this store keeps
 * no more than one read of them). Clear and "Preserve log" only change what
 * the panels show, never the captured logs.
 */
import { call } from '../../bridge';
import { appState } from '../../stores/appState.svelte';
import { coalesced } from '../../stores/coalesce';
import { errorText } from '../../stores/toasts.svelte';
import { LEVELS, logStart, type ConsoleEntry, type NetworkEntry, type NetworkKind } from './devtools';

/** How many of the newest entries a read asks for. */
export const READ_LIMIT = 500;
/** How often an open panel re-reads (ms). */
export const POLL_MS = 1000;

export class DevtoolsStore {
  console = $state<ConsoleEntry[]>([]);
  network = $state<NetworkEntry[]>([]);
  error = $state('');
  /** The tab whose logs are held ('' for none). */
  loadedTab = $state('');

  // Filters (shared by every tab).
  levels = $state<Set<string>>(new Set(LEVELS.filter((l) => l !== 'debug')));
  consoleText = $state('');
  networkKind = $state<NetworkKind>('all');
  networkText = $state('');
  /** Keep the entries of earlier pages (else a navigation starts an empty log). */
  preserve = $state(false);
  /** The request whose details show ('' for none). */
  selected = $state('');

  /** When each tab was last cleared (Unix ms). */
  private cleared = $state<Record<string, number>>({});

  /** The browser tab the panels follow. */
  get tabId(): string {
    const focused = appState.focusedItem;
    if (focused?.browser) return focused.id;
    const other = appState.shown(appState.layout.focusedPane === 'primary' ? 'secondary' : 'primary');
    return other?.browser ? other.id : '';
  }

  /** Where the shown log starts (Clear, and the last navigation unless preserved). */
  get since(): number {
    return logStart(this.network, this.cleared[this.loadedTab] ?? 0, this.preserve);
  }

  /** Hides every entry captured so far (the captured logs stay). */
  clear(): void {
    const newest = Math.max(0, ...this.console.map((e) => e.ts + 1), ...this.network.map((e) => e.startedAt + 1));
    this.cleared = { ...this.cleared, [this.loadedTab]: Math.max(Date.now(), newest) };
    this.selected = '';
  }

  toggleLevel(level: string): void {
    const next = new Set(this.levels);
    if (next.has(level)) next.delete(level);
    else next.add(level);
    this.levels = next;
  }

  /** Re-reads the active tab's logs (reads asked for during a read coalesce into one more). */
  refresh = coalesced(() => this.load());

  private async load(): Promise<void> {
    const tabId = this.tabId;
    if (!tabId) {
      this.console = [];
      this.network = [];
      this.loadedTab = '';
      return;
    }
    try {
      const [c, n] = await Promise.all([
        call<ConsoleEntry[]>('get_console_logs', { tabId, limit: READ_LIMIT }),
        call<NetworkEntry[]>('get_network_logs', { tabId, limit: READ_LIMIT }),
      ]);
      if (!c.ok || !n.ok) {
        const e = (c.ok ? n : c).error;
        this.error = e?.message ?? 'the logs could not be read';
        return;
      }
      this.console = c.content ?? [];
      this.network = n.content ?? [];
      if (this.loadedTab !== tabId) this.selected = '';
      this.loadedTab = tabId;
      this.error = '';
    } catch (err) {
      this.error = errorText(err);
    }
  }

  /** Reads now and every POLL_MS until the returned stop is called. */
  follow(): () => void {
    void this.refresh();
    const timer = setInterval(() => void this.refresh(), POLL_MS);
    return () => clearInterval(timer);
  }
}

export const devtools = new DevtoolsStore();
