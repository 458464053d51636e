import { describe, expect, it } from 'vitest';
import { TabDragStore, type DropTarget } from './tabDrag.svelte';
import type { PaneItem } from './appState.svelte';

const item = (id: string, pane: 'primary' | 'secondary' = 'primary') =>
  ({ id, browser: false, title: id, detail: '/', pane, tab: {} }) as unknown as PaneItem;
const at = (t: DropTarget | null) => () => t;

describe('TabDragStore', () => {
  it('keeps a press without movement a click', () => {
    const d = new TabDragStore();
    d.press(item('w1'), 10, 10);
    d.move(12, 11, at('secondary')); // under the threshold
    expect(d.active).toBe(false);
    expect(d.release()).toBeNull();
    expect(d.consumeClick()).toBe(false);
  });

  it('moves a tab to the pane it is dropped on', () => {
    const d = new TabDragStore();
    const w1 = item('w1');
    d.press(w1, 10, 10);
    d.move(60, 10, at('secondary'));
    expect(d.active).toBe(true);
    expect(d.target).toBe('secondary');
    expect(d.release()).toEqual({ item: w1, pane: 'secondary' });
    expect(d.active).toBe(false);
    expect(d.consumeClick()).toBe(true); // the click after the drag is ignored
    expect(d.consumeClick()).toBe(false);
  });

  it('turns the right-edge zone into the secondary pane', () => {
    const d = new TabDragStore();
    d.press(item('w2'), 0, 0);
    d.move(900, 300, at('split'));
    expect(d.release()?.pane).toBe('secondary');
  });

  it('does nothing when dropped on its own pane or outside any target', () => {
    const d = new TabDragStore();
    d.press(item('w3', 'secondary'), 0, 0);
    d.move(40, 0, at('secondary'));
    expect(d.release()).toBeNull();
    d.press(item('w3'), 0, 0);
    d.move(40, 0, at(null));
    expect(d.release()).toBeNull();
  });

  it('cancels a running drag', () => {
    const d = new TabDragStore();
    d.press(item('w4'), 0, 0);
    d.move(40, 0, at('secondary'));
    d.cancel();
    expect(d.active).toBe(false);
    expect(d.release()).toBeNull();
    expect(d.consumeClick()).toBe(true);
  });
});
