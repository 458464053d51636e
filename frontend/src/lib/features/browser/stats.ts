// Counters of the live view, readable from the page as
// window.__meithBrowserView (bench/browserview.mjs and the e2e tests use
// them). Cheap: two numbers per drawn frame.

export interface ViewStats {
  /** Frames drawn into a live view's canvas since the window loaded. */
  framesDrawn: number;
  /** performance.now() when the last frame was drawn. */
  lastFrameAt: number;
  /** The tab and frame seq drawn last. */
  tabId: string;
  seq: number;
  /** The page viewport (CSS pixels) of the last frame. */
  deviceWidth: number;
  deviceHeight: number;
}

export const viewStats: ViewStats = { framesDrawn: 0, lastFrameAt: 0, tabId: '', seq: 0, deviceWidth: 0, deviceHeight: 0 };

(globalThis as unknown as { __meithBrowserView?: ViewStats }).__meithBrowserView = viewStats;
