/** Window layout state that lives only in the renderer (persisted in localStorage). */

export type DrawerTab = 'logs' | 'output' | 'tools';
export type View = 'workspace' | 'settings';

const KEY = 'meith.ui';
const MIN_DRAWER = 120;
const MAX_DRAWER = 800;

interface Saved {
  drawerOpen?: boolean;
  drawerHeight?: number;
  drawerTab?: DrawerTab;
}

function load(): Saved {
  try {
    const raw = globalThis.localStorage?.getItem(KEY);
    return raw ? (JSON.parse(raw) as Saved) : {};
  } catch {
    return {};
  }
}

class UiStore {
  view = $state<View>('workspace');
  drawerOpen = $state(false);
  drawerHeight = $state(260);
  drawerTab = $state<DrawerTab>('logs');

  constructor() {
    const s = load();
    if (typeof s.drawerOpen === 'boolean') this.drawerOpen = s.drawerOpen;
    if (typeof s.drawerHeight === 'number') this.drawerHeight = clampHeight(s.drawerHeight);
    if (s.drawerTab === 'logs' || s.drawerTab === 'output' || s.drawerTab === 'tools') this.drawerTab = s.drawerTab;
  }

  toggleDrawer(): void {
    this.drawerOpen = !this.drawerOpen;
    this.save();
  }

  openDrawer(tab: DrawerTab): void {
    this.drawerTab = tab;
    this.drawerOpen = true;
    this.save();
  }

  setDrawerHeight(px: number): void {
    this.drawerHeight = clampHeight(px);
    this.save();
  }

  toggleSettings(): void {
    this.view = this.view === 'settings' ? 'workspace' : 'settings';
  }

  private save(): void {
    try {
      globalThis.localStorage?.setItem(
        KEY,
        JSON.stringify({ drawerOpen: this.drawerOpen, drawerHeight: this.drawerHeight, drawerTab: this.drawerTab }),
      );
    } catch {
      // storage unavailable: keep the layout for this session only
    }
  }
}

function clampHeight(px: number): number {
  if (!Number.isFinite(px)) return 260;
  return Math.round(Math.min(MAX_DRAWER, Math.max(MIN_DRAWER, px)));
}

export const ui = new UiStore();
