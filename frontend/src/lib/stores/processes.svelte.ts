/**
 * The processes meith manages, as the window shows them: dev servers
 * (list_dev_servers), terminals (list_terminals) and, while the Processes
 * panel is open, every managed process with its OS subtree and ports,
 * orphans included (get_process_tree). The store re-reads them on every
 * "process_changed" hint from the Go side (and, as a fallback, slowly on a
 * timer); actions go through the process tools. It also
 *   - picks the dev server the Output panel shows,
 *   - opens (or offers to open) a dev server's page when it reports its
 *     port, per the devServerOpenBrowser setting,
 *   - closes a terminal tab's terminal when the tab goes away.
 * Failed actions become toasts and resolve to undefined; they never throw.
 */
import {
  call,
  Topics,
  type DevServer,
  type ProcessInfo,
  type TerminalSession,
  type WorkspaceTab,
} from '../bridge';
import { findTabOnPort, localURL, newPorts, portAction, portMap, type PortMap } from '../features/processes/openOnPort';
import { newestFirst, runningSummary, serverLabel } from '../features/processes/status';
import { appState } from './appState.svelte';
import { browser } from './browser.svelte';
import { liveStore, LiveModel } from './live';
import { callForAction, errorText, resultError, toasts } from './toasts.svelte';
import { ui } from './ui.svelte';

/** How often the store re-reads without a hint (a missed event costs at most this). */
export const FALLBACK_MS = 15_000;

/** An offer to open a dev server's page (devServerOpenBrowser "offer"). */
export interface PortOffer {
  serverId: string;
  port: number;
  label: string;
  /** The space of the server's project ('' for a server started by hand: the active space). */
  spaceId: string;
}

/**
 * Takes a dev server's new port before the devServerOpenBrowser setting
 * acts on it (the header's Run opening its own server's page): true when it
 * took care of it.
 */
export type PortClaim = (server: DevServer & { spaceId?: string; projectId?: string }, port: number) => boolean;

/** Returns the array in content, or content[key] when it is an object holding one. */
function listOf<T>(content: unknown, key: string): T[] {
  if (Array.isArray(content)) return content as T[];
  const inner = (content as Record<string, unknown> | null | undefined)?.[key];
  return Array.isArray(inner) ? (inner as T[]) : [];
}

export class ProcessesStore extends LiveModel {
  servers = $state<DevServer[]>([]);
  terminals = $state<TerminalSession[]>([]);
  /** get_process_tree's list (read only while somebody watches it). */
  tree = $state<ProcessInfo[]>([]);
  /** Why the last read failed ('' when it did not). */
  error = $state('');
  loaded = $state(false);
  /** The dev server the Output panel shows ('' for the newest). */
  selectedId = $state('');
  /** Pending "open in browser" offers. */
  offers = $state<PortOffer[]>([]);
  /** How many times each process's output was cleared (a view of it starts over when this changes). */
  clears = $state<Record<string, number>>({});

  /** Dev servers newest first. */
  sorted = $derived(newestFirst(this.servers));
  summary = $derived(runningSummary(this.servers));
  /** The dev server the Output panel shows. */
  selected = $derived<DevServer | undefined>(this.sorted.find((s) => s.id === this.selectedId) ?? this.sorted[0]);

  private treeWatchers = 0;
  private claims = new Set<PortClaim>();
  private ports: PortMap | null = null;
  private tabTerminals: Map<string, string> | null = null; // terminal id → tab id
  /** Follows process_changed (start, stop and refresh: LiveModel), with a fallback re-read. */
  protected readonly hints = liveStore(Topics.processChanged, () => this.load(), {
    fallbackMs: FALLBACK_MS,
    onError: (err) => (this.error = errorText(err)),
  });

  /** Stops and forgets everything read and seen (the ports, the tabs' terminals). */
  reset(): void {
    this.stop();
    this.servers = [];
    this.terminals = [];
    this.tree = [];
    this.error = '';
    this.loaded = false;
    this.selectedId = '';
    this.offers = [];
    this.clears = {};
    this.ports = null;
    this.tabTerminals = null;
  }

  /** Reads get_process_tree too until the returned stop is called (the Processes panel). */
  watchTree(): () => void {
    this.treeWatchers++;
    void this.refresh();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.treeWatchers--;
    };
  }

  private async load(): Promise<void> {
    const withTree = this.treeWatchers > 0;
    try {
      const [servers, terminals, tree] = await Promise.all([
        call('list_dev_servers'),
        call('list_terminals'),
        withTree ? call('get_process_tree') : Promise.resolve(null),
      ]);
      const failed = [
        !servers.ok && resultError(servers, 'list_dev_servers'),
        !terminals.ok && resultError(terminals, 'list_terminals'),
        tree && !tree.ok && resultError(tree, 'get_process_tree'),
      ].filter(Boolean);
      this.error = failed.join('; ');
      if (servers.ok) {
        const list = listOf<DevServer>(servers.content, 'devServers');
        this.servers = list;
        this.notePorts(list);
      }
      if (terminals.ok) this.terminals = listOf<TerminalSession>(terminals.content, 'terminals');
      if (tree?.ok) this.tree = listOf<ProcessInfo>(tree.content, 'processes');
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loaded = true;
    }
  }

  // ---- open on port ----

  /** Lets claim take new ports first (see PortClaim); returns the function that stops it. */
  claimPorts(claim: PortClaim): () => void {
    this.claims.add(claim);
    return () => this.claims.delete(claim);
  }

  private notePorts(servers: DevServer[]): void {
    const fresh = newPorts(this.ports, servers);
    this.ports = portMap(servers);
    // Offers of servers that stopped go away.
    if (this.offers.length) {
      const live = new Set(servers.filter((s) => s.port !== null && (s.status === 'running' || s.status === 'starting')).map((s) => s.id));
      if (this.offers.some((o) => !live.has(o.serverId))) this.offers = this.offers.filter((o) => live.has(o.serverId));
    }
    if (fresh.length === 0) return;
    const action = portAction(appState.settings?.devServerOpenBrowser);
    for (const { id, port } of fresh) {
      const s = servers.find((x) => x.id === id) as (DevServer & { spaceId?: string }) | undefined;
      if (s && [...this.claims].some((claim) => claim(s, port))) continue;
      const spaceId = s?.spaceId ?? '';
      if (action === 'open') void this.openPort(port, spaceId);
      else if (action === 'offer' && !this.offers.some((o) => o.serverId === id)) {
        this.offers = [...this.offers, { serverId: id, port, label: s ? serverLabel(s) : id, spaceId }];
      }
    }
  }

  /**
   * Shows a dev server's page in a space (default: the active one): reloads
   * a browser tab of that space already on that port (and shows it when the
   * space is active), else opens http://localhost:PORT/ in that space.
   */
  async openPort(port: number, spaceId = ''): Promise<void> {
    const space = spaceId || appState.activeSpaceId;
    const tab = findTabOnPort(appState.state?.browserTabs ?? [], space, port);
    if (!tab) {
      await browser.openTab(localURL(port), space);
      return;
    }
    // The view changes now, before anything is awaited: a reload that
    // answers late must not pull the user out of where they went since
    // (Settings opened right after a click on the port chip).
    if (space === appState.activeSpaceId) {
      if (ui.view !== 'workspace') ui.view = 'workspace';
      const item = [...appState.primaryItems, ...appState.secondaryItems].find((i) => i.id === tab.id);
      if (item && appState.shown(item.pane)?.id !== tab.id) await appState.showItem(item);
    }
    await browser.reload(tab.id);
  }

  /** Takes an offer: opens its page. */
  async acceptOffer(serverId: string): Promise<void> {
    const o = this.offers.find((x) => x.serverId === serverId);
    this.dismissOffer(serverId);
    if (o) await this.openPort(o.port, o.spaceId);
  }

  dismissOffer(serverId: string): void {
    this.offers = this.offers.filter((o) => o.serverId !== serverId);
  }

  // ---- Output panel ----

  /** Makes the Output panel show a dev server. */
  select(serverId: string): void {
    this.selectedId = serverId;
  }

  /** Opens the drawer on the Output panel (on serverId, if given). */
  showOutput(serverId?: string): void {
    if (serverId) this.select(serverId);
    ui.openDrawer('output');
  }

  // ---- actions ----

  private async act<T>(tool: string, args: Record<string, unknown>): Promise<T | undefined> {
    const r = await callForAction<T>(tool, args);
    void this.refresh();
    return r?.content;
  }

  /**
   * Starts a dev server (the Run form): the Output panel then shows it, and
   * the drawer opens on it when the showOutputOnRun setting is on.
   */
  async startDevServer(spec: { cwd: string; command: string; name?: string }): Promise<DevServer | undefined> {
    const command = spec.command.trim();
    if (!command) {
      toasts.push('Type the command to run (for example: npm run dev).');
      return undefined;
    }
    const args: Record<string, unknown> = { cwd: spec.cwd.trim() || appState.activeSpace?.cwd || '~', command };
    if (spec.name?.trim()) args.name = spec.name.trim();
    const s = await this.act<DevServer>('start_dev_server', args);
    if (!s) return undefined;
    this.select(s.id);
    if (appState.settings?.showOutputOnRun) ui.openDrawer('output');
    return s;
  }

  async stopDevServer(id: string): Promise<boolean> {
    return (await this.act<unknown>('stop_dev_server', { devServerId: id })) !== undefined;
  }

  /** Restarts a dev server (it gets a new id; the Output panel follows it if it showed the old one). */
  async restartDevServer(id: string): Promise<DevServer | undefined> {
    const wasShown = this.selected?.id === id;
    const s = await this.act<DevServer>('restart_dev_server', { devServerId: id });
    if (s && wasShown) this.select(s.id);
    return s;
  }

  /** Forgets an ended dev server and its output (the Processes panel's Remove). */
  async removeDevServer(id: string): Promise<boolean> {
    return (await this.act<unknown>('remove_dev_server', { devServerId: id })) !== undefined;
  }

  /** Drops a process's output captured so far; views of it start over. */
  async clearOutput(id: string): Promise<boolean> {
    const ok = (await this.act<unknown>('clear_process_logs', { processId: id })) !== undefined;
    if (ok) this.clears = { ...this.clears, [id]: (this.clears[id] ?? 0) + 1 };
    return ok;
  }

  async closeTerminal(id: string): Promise<boolean> {
    return (await this.act<unknown>('close_terminal', { terminalId: id })) !== undefined;
  }

  async stopOrphan(id: string): Promise<boolean> {
    return (await this.act<unknown>('stop_orphan_process', { id })) !== undefined;
  }

  // ---- terminal tabs ----

  /**
   * Follows the workspace tabs: when a terminal tab goes away (closed in
   * the window, by the CLI or with its space), or is bound to another
   * terminal (Restart), its old terminal is closed. The first call only
   * records.
   */
  noteTabs(tabs: readonly WorkspaceTab[] | undefined): void {
    if (!tabs) return;
    const now = new Map<string, string>();
    for (const t of tabs) if (t.kind === 'terminal' && t.terminalId) now.set(t.terminalId, t.id);
    const before = this.tabTerminals;
    this.tabTerminals = now;
    if (!before) return;
    for (const terminalId of before.keys()) {
      if (now.has(terminalId)) continue;
      // Quietly: the terminal may be gone already (it exited, or a restart closed it).
      void call('close_terminal', { terminalId })
        .catch(() => undefined)
        .finally(() => void this.refresh());
    }
  }
}

export const processes = new ProcessesStore();
