// When a pane's tab strip is too narrow for its tabs (a 1024 px window, a
// split), the tabs scroll sideways without a scrollbar over their labels,
// the new-tab buttons stay pinned at the end, and a menu lists every tab.
// These are the measurements that decide it.

/** Whether a scroller's content is wider than the scroller (a pixel of rounding is not). */
export function isOverflowing(el: { scrollWidth: number; clientWidth: number }): boolean {
  return el.scrollWidth > el.clientWidth + 1;
}

/** A horizontal extent in pixels. */
export interface Span {
  left: number;
  right: number;
}

/**
 * The ids of the tabs not wholly inside the strip's visible span (scrolled
 * out or cut off at an edge), in strip order.
 */
export function hiddenTabIds(visible: Span, tabs: readonly (Span & { id: string })[]): string[] {
  // Half a pixel of slack for fractional layout.
  return tabs.filter((t) => t.left < visible.left - 0.5 || t.right > visible.right + 0.5).map((t) => t.id);
}
