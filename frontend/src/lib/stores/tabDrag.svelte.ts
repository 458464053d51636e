/**
 * Dragging a tab between panes with the pointer (not HTML5 drag and drop,
 * which WebKitGTK and a captured pointer handle poorly): a press on a tab
 * starts a pending drag, moving more than a few pixels makes it a drag, and
 * the element under the pointer that carries data-drop ("primary",
 * "secondary" or "split") is the target. Releasing on a target moves the tab
 * there; a press without movement stays a click.
 */
import type { Pane } from '../bridge';
import type { PaneItem } from './appState.svelte';

/** Where a dragged tab can land: a pane, or the right-edge zone that splits. */
export type DropTarget = Pane | 'split';

/** Pixels the pointer must travel before a press becomes a drag. */
export const DRAG_THRESHOLD = 5;

export class TabDragStore {
  /** The tab being dragged (null when no drag runs). */
  item = $state<PaneItem | null>(null);
  x = $state(0);
  y = $state(0);
  target = $state<DropTarget | null>(null);

  private pending: { item: PaneItem; x: number; y: number } | null = null;
  /** Set when a drag ended, so the click that follows the release is ignored. */
  private justDropped = false;

  /** Whether a drag is running. */
  get active(): boolean {
    return this.item !== null;
  }

  /** A press on a tab (primary button). */
  press(item: PaneItem, x: number, y: number): void {
    this.pending = { item, x, y };
    this.justDropped = false;
  }

  /**
   * Pointer movement while pressed. hit finds the drop target at a point
   * (document.elementFromPoint in the window; a function in tests).
   */
  move(x: number, y: number, hit: (x: number, y: number) => DropTarget | null): void {
    if (!this.pending && !this.item) return;
    if (!this.item && this.pending) {
      if (Math.hypot(x - this.pending.x, y - this.pending.y) < DRAG_THRESHOLD) return;
      this.item = this.pending.item;
    }
    this.x = x;
    this.y = y;
    this.target = hit(x, y);
  }

  /**
   * The release. Returns the move to make ({item, pane}) or null when the
   * press was a click, the target is the tab's own pane, or there is none.
   */
  release(): { item: PaneItem; pane: Pane } | null {
    const item = this.item;
    const target = this.target;
    this.pending = null;
    this.item = null;
    this.target = null;
    if (!item) return null;
    this.justDropped = true;
    if (!target) return null;
    const pane: Pane = target === 'split' ? 'secondary' : target;
    return pane === item.pane ? null : { item, pane };
  }

  /** Abandons a drag (Escape, pointer cancel, window blur). */
  cancel(): void {
    if (this.item) this.justDropped = true;
    this.pending = null;
    this.item = null;
    this.target = null;
  }

  /** True once after a drag ended: the click it causes must be ignored. */
  consumeClick(): boolean {
    const dropped = this.justDropped;
    this.justDropped = false;
    return dropped;
  }
}

/** Finds the drop target under a point of the document. */
export function hitTest(x: number, y: number): DropTarget | null {
  const el = document.elementFromPoint(x, y)?.closest('[data-drop]');
  const t = el?.getAttribute('data-drop');
  return t === 'primary' || t === 'secondary' || t === 'split' ? t : null;
}

export const tabDrag = new TabDragStore();
