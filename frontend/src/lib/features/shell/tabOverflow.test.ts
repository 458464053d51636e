import { describe, expect, it } from 'vitest';
import { hiddenTabIds, isOverflowing } from './tabOverflow';
import { paneItems } from '../../stores/appState.svelte';
import type { BrowserTab, WorkspaceTab } from '../../bridge';

describe('tab strip overflow', () => {
  it('overflows when the tabs are wider than their strip (a pixel of rounding is not)', () => {
    expect(isOverflowing({ scrollWidth: 900, clientWidth: 400 })).toBe(true);
    expect(isOverflowing({ scrollWidth: 401, clientWidth: 400 })).toBe(false);
    expect(isOverflowing({ scrollWidth: 400, clientWidth: 400 })).toBe(false);
    expect(isOverflowing({ scrollWidth: 0, clientWidth: 0 })).toBe(false);
  });

  it('names the tabs that are cut off or scrolled out of the strip', () => {
    const tabs = [
      { id: 'a', left: -150, right: -10 }, // scrolled out to the left
      { id: 'b', left: -20, right: 120 }, // half out on the left
      { id: 'c', left: 120, right: 260 },
      { id: 'd', left: 260, right: 400 }, // ends exactly at the edge: visible
      { id: 'e', left: 399, right: 540 }, // cut off on the right
      { id: 'f', left: 540, right: 680 },
    ];
    expect(hiddenTabIds({ left: 0, right: 400 }, tabs)).toEqual(['a', 'b', 'e', 'f']);
    expect(hiddenTabIds({ left: 0, right: 1000 }, tabs.slice(2))).toEqual([]);
  });
});

describe('strip order', () => {
  const w = (id: string, createdAt: number): WorkspaceTab =>
    ({ id, spaceId: 's', kind: 'editor', title: id, cwd: '/p', active: false, pane: 'primary', terminalId: null, createdAt }) as WorkspaceTab;
  const b = (id: string, createdAt: number, pane = 'primary'): BrowserTab =>
    ({ id, spaceId: 's', url: 'http://x/', title: id, active: false, pane, createdAt }) as BrowserTab;

  it('puts a new browser tab at the end of its strip, tabs of both kinds in the order they were opened', () => {
    const items = paneItems([b('b1', 1), b('b2', 50)], [w('w1', 10), w('w2', 20)], 'primary');
    expect(items.map((i) => i.id)).toEqual(['b1', 'w1', 'w2', 'b2']);
    expect(paneItems([b('b1', 1, 'secondary')], [w('w1', 10)], 'primary').map((i) => i.id)).toEqual(['w1']);
  });

  it('lists the right pane\'s tabs in their final places once the split is closed, before the backend moves them', () => {
    const tabs = [w('t1', 1), { ...w('t2', 2) }, w('t3', 3)];
    tabs[0].pane = 'secondary';
    tabs[2].pane = 'secondary';
    expect(paneItems([], tabs, 'primary').map((i) => i.id)).toEqual(['t2']);
    const all = paneItems([b('b1', 4, 'secondary')], tabs, 'primary', true);
    expect(all.map((i) => i.id)).toEqual(['t1', 't2', 't3', 'b1']);
    expect(all.every((i) => i.pane === 'primary')).toBe(true);
  });
});
