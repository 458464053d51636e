// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import DiffView from './DiffView.svelte';

const small = `diff --git a/mod.txt b/mod.txt
index 85c3040..8ec3845 100644
--- a/mod.txt
+++ b/mod.txt
@@ -1,3 +1,3 @@ section
 alpha
-beta
+beta changed here
 gamma
`;

function bigDiff(n: number): string {
  const body = Array.from({ length: n }, (_, i) => `+line ${i + 1}`).join('\n');
  return `diff --git a/big.txt b/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,${n} @@\n${body}\n`;
}

let app: ReturnType<typeof mount> | undefined;
function render(props: Record<string, unknown>) {
  app = mount(DiffView, { target: document.body, props: { binary: false, path: 'mod.txt', diff: small, ...props } as never });
  flushSync();
}
const rows = () => [...document.querySelectorAll('.row')] as HTMLElement[];
const cells = (row: HTMLElement) => [...row.children].map((c) => c.textContent);

beforeEach(() => {
  document.body.innerHTML = '';
});
afterEach(() => {
  if (app) unmount(app);
  app = undefined;
});

describe('DiffView', () => {
  it('renders both gutters, the markers and the word highlights', () => {
    render({});
    expect(document.querySelector('[aria-label="Diff of mod.txt"]')).not.toBeNull();
    const r = rows();
    expect(r).toHaveLength(5);
    expect(r[0].classList.contains('hunk')).toBe(true);
    expect(r[0].textContent).toContain('@@ -1,3 +1,3 @@ section');
    expect(cells(r[1])).toEqual(['1', '1', ' ', 'alpha']);
    expect(cells(r[2])).toEqual(['2', '', '-', 'beta']);
    expect(cells(r[3])).toEqual(['', '2', '+', 'beta changed here']);
    expect(r[2].classList.contains('del')).toBe(true);
    expect(r[3].classList.contains('add')).toBe(true);
    expect(r[3].querySelector('mark')?.textContent).toBe(' changed here');
    expect(cells(r[4])).toEqual(['3', '3', ' ', 'gamma']);
  });

  it('renders labelled hunk buttons that report the hunk and action', () => {
    const onHunkAction = vi.fn();
    render({ onHunkAction, hunkActions: ['stage', 'discard'] });
    const buttons = [...document.querySelectorAll('button')];
    expect(buttons.map((b) => b.getAttribute('aria-label'))).toEqual(['Stage hunk 1', 'Discard hunk 1']);
    buttons[1].click();
    expect(onHunkAction).toHaveBeenCalledWith(0, 'discard');
  });

  it('renders no buttons without a handler', () => {
    render({ hunkActions: ['stage'] });
    expect(document.querySelectorAll('button')).toHaveLength(0);
  });

  it('shows placeholders for binary, omitted and empty diffs', () => {
    render({ binary: true, diff: 'Binary files a/x and b/x differ' });
    expect(document.body.textContent).toContain('Binary file not shown');
    unmount(app!);
    render({ diff: 'Large untracked file omitted from preview.' });
    expect(document.body.textContent).toContain('Large untracked file omitted from preview.');
    unmount(app!);
    render({ diff: '' });
    expect(document.body.textContent).toContain('No changes');
    expect(rows()).toHaveLength(0);
  });

  it('virtualises a 10,000-line diff', () => {
    render({ diff: bigDiff(10_000), path: 'big.txt', viewportHeight: 800 });
    const scroller = document.querySelector('[aria-label="Diff of big.txt"]') as HTMLElement;
    const spacer = scroller.firstElementChild as HTMLElement;
    expect(spacer.style.height).toBe(`${10_001 * 20}px`);
    expect(rows().length).toBeGreaterThan(40);
    expect(rows().length).toBeLessThanOrEqual(150);

    scroller.scrollTop = 5000 * 20;
    scroller.dispatchEvent(new Event('scroll'));
    flushSync();
    const r = rows();
    expect(r.length).toBeLessThanOrEqual(150);
    const numbers = r.map((row) => Number(row.children[1].textContent));
    expect(numbers).toContain(5000);
    expect(numbers).not.toContain(1);
  });

  it('a hunk\'s Open button opens the editor at its first changed line; none without onOpenAt', () => {
    render({});
    expect(document.querySelector('[aria-label="Open hunk 1 in the editor"]')).toBeNull();
    unmount(app!);
    document.body.innerHTML = '';
    const opened: number[] = [];
    render({ onOpenAt: (line: number) => opened.push(line) });
    (document.querySelector('[aria-label="Open hunk 1 in the editor"]') as HTMLButtonElement).click();
    expect(opened).toEqual([2]);
  });
});
