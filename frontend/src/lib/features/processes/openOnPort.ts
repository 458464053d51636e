// Opening a dev server's page when it reports its port (the setting
// devServerOpenBrowser): which servers just got a port, and which browser
// tab already shows that port.

import type { BrowserTab, DevServer, DevServerOpenBrowser } from '../../bridge';
import { isRunning } from './status';

/** The ports known per dev server id (null: none yet). */
export type PortMap = Map<string, number | null>;

/** The ports of servers, by id. */
export function portMap(servers: readonly DevServer[]): PortMap {
  return new Map(servers.map((s) => [s.id, s.port ?? null]));
}

/**
 * The running servers that report a port now and did not at the last look
 * (prev). With no last look (the window just opened) there are none: only
 * ports that appear while the window watches count.
 */
export function newPorts(prev: PortMap | null, servers: readonly DevServer[]): { id: string; port: number }[] {
  if (!prev) return [];
  const out: { id: string; port: number }[] = [];
  for (const s of servers) {
    if (!isRunning(s.status) || typeof s.port !== 'number' || s.port <= 0) continue;
    if ((prev.get(s.id) ?? null) === null) out.push({ id: s.id, port: s.port });
  }
  return out;
}

/** What to do for a new port under the setting (absent: offer). */
export function portAction(setting: DevServerOpenBrowser | undefined): DevServerOpenBrowser {
  return setting === 'open' || setting === 'off' ? setting : 'offer';
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '0.0.0.0', '[::1]', '::1']);

/** The page a dev server on port serves. */
export const localURL = (port: number): string => `http://localhost:${port}/`;

/** Whether url is a local http(s) page on port. */
export function isLocalOnPort(url: string, port: number): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  const p = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  return p === port && LOCAL_HOSTS.has(u.hostname);
}

/** The browser tab of spaceId that shows a local page on port (the active one first). */
export function findTabOnPort(tabs: readonly BrowserTab[], spaceId: string, port: number): BrowserTab | undefined {
  const mine = tabs.filter((t) => t.spaceId === spaceId && isLocalOnPort(t.url, port));
  return mine.find((t) => t.active) ?? mine[0];
}
