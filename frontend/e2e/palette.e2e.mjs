// End-to-end tests of the window's keyboard and tab strips against the real
// Go backend: the command palette (Ctrl+Shift+P) and Ctrl+J work while a
// terminal (xterm) has the focus, and an overflowing tab strip's "All tabs"
// menu shows a tab that is scrolled out of view.
//
//   (cd frontend && npm run build) && E2E_FILES=frontend/e2e/palette.e2e.mjs bash scripts/e2e.sh
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { App, cli, openWindow, eventually, stateSnapshot, tidyUp } from './harness.mjs';

let app;
let browser;
let page;
let pageErrors = [];

/** The active space's layout, from the backend. */
async function layout() {
  const st = await cli('app_get_state');
  return st.spaces.find((s) => s.id === st.activeSpaceId).layout;
}

/** Whether the focus is in xterm (its helper textarea). */
const focusInTerminal = () => page.evaluate(() => !!document.activeElement?.closest('.xterm'));

let snapshot;

before(async () => {
  app = await App.start();
  snapshot = await stateSnapshot();
  ({ browser, page, pageErrors } = await openWindow({ timeout: 15_000 }));
});

after(async () => {
  if (page && snapshot) await tidyUp(page, snapshot).catch((err) => console.error('tidy up:', err));
  await browser?.close();
  await app?.stop();
});

describe('shortcuts and tab strips', { concurrency: false }, () => {
  test('from a focused terminal: Ctrl+Shift+P opens the palette and runs an action; Ctrl+J toggles the drawer', { timeout: 120_000 }, async () => {
    const strip = page.getByRole('tablist', { name: 'Primary pane tabs' });
    await page.getByRole('button', { name: 'New terminal in the primary pane' }).click();
    const view = page.locator('.terminal[data-terminal-id^="term_"]');
    await view.waitFor();
    await eventually(async () => assert.equal(await view.getByRole('status').count(), 0, 'the shell has started'), 20_000);
    await view.locator('.xterm').click();
    assert.ok(await focusInTerminal(), 'the terminal has the focus');
    // The drawer as an earlier test file left it (the layout is kept per space).
    if ((await layout()).drawerOpen) {
      await page.keyboard.press('Control+J');
      await eventually(async () => assert.equal((await layout()).drawerOpen, false));
      await view.locator('.xterm').click();
    }

    // Ctrl+J from the terminal: the drawer opens, and closes again.
    await page.keyboard.press('Control+J');
    await eventually(async () => assert.equal((await layout()).drawerOpen, true));
    await page.getByRole('tablist', { name: 'Drawer panels' }).waitFor();
    await view.locator('.xterm').click();
    await page.keyboard.press('Control+J');
    await eventually(async () => assert.equal((await layout()).drawerOpen, false));

    // Ctrl+Shift+P from the terminal: the palette, with the shortcuts shown; Esc gives the focus back.
    await view.locator('.xterm').click();
    await page.keyboard.press('Control+Shift+P');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await palette.waitFor();
    const input = palette.getByRole('combobox', { name: 'Type a command' });
    assert.ok(await input.evaluate((el) => el === document.activeElement), 'the palette has the focus');
    const drawerRow = palette.getByRole('option', { name: /Show the drawer/ });
    assert.match(await drawerRow.locator('kbd').textContent(), /^Ctrl\+J$/);
    await page.keyboard.press('Escape');
    await palette.waitFor({ state: 'detached' });
    assert.ok(await focusInTerminal(), 'Esc gives the focus back to the terminal');

    // Fuzzy, keyboard only: "drawer tools" + Enter opens the drawer at Tools.
    await page.keyboard.press('Control+Shift+P');
    await palette.waitFor();
    await page.keyboard.type('drawer tools');
    assert.equal((await palette.getByRole('option').first().locator('.label').textContent()).trim(), 'Drawer: Show Tools');
    await page.keyboard.press('Enter');
    await palette.waitFor({ state: 'detached' });
    await eventually(async () => assert.equal((await layout()).drawerOpen, true));
    await page.getByRole('tablist', { name: 'Drawer panels' }).getByRole('tab', { name: 'Tools', selected: true }).waitFor();

    // The shell got none of those keys: it still answers a command.
    await view.locator('.xterm').click();
    await page.keyboard.type('echo palette-$((6*7))');
    await page.keyboard.press('Enter');
    await eventually(async () => {
      const rows = await view.locator('.xterm-rows > div').allTextContents();
      assert.ok(rows.some((r) => r.trim() === 'palette-42'), rows.filter((r) => r.trim()).join('\n'));
    }, 10_000);
    await page.keyboard.press('Control+J'); // close the drawer again
    await eventually(async () => assert.equal((await layout()).drawerOpen, false));
    assert.ok(await strip.getByRole('tab').count() >= 1);
  });

  test('an overflowing strip at 1024 px keeps its buttons, shows no scrollbar, and its menu shows a hidden tab', { timeout: 120_000 }, async () => {
    await page.setViewportSize({ width: 1024, height: 768 });
    const strip = page.getByRole('tablist', { name: 'Primary pane tabs' });
    // Tabs through the strip's pinned "+" (a CLI call would wait for an approval).
    const newEditor = page.getByRole('button', { name: 'New editor tab in the primary pane' });
    const before = await strip.getByRole('tab').count();
    for (let i = 1; i <= 12; i++) {
      await newEditor.click();
      await eventually(async () => assert.equal(await strip.getByRole('tab').count(), before + i), 10_000);
    }
    const ids = await strip.getByRole('tab').evaluateAll((els) => els.map((e) => e.getAttribute('data-tab-id')));
    const tab = (id) => strip.locator(`[role="tab"][data-tab-id="${id}"]`);
    const last = tab(ids[ids.length - 1]);
    const first = tab(ids[0]);
    await eventually(async () => assert.equal(await last.getAttribute('aria-selected'), 'true'));

    // No scrollbar over the labels; the new-tab buttons stay in the window.
    const scroller = strip.locator('.tabs');
    const box = await scroller.boundingBox();
    const bars = await scroller.evaluate((el) => ({ offset: el.offsetHeight, client: el.clientHeight, scroll: el.scrollWidth, width: el.clientWidth }));
    assert.ok(bars.scroll > bars.width, `the tabs overflow (${bars.scroll} > ${bars.width})`);
    assert.equal(bars.client, bars.offset, 'no horizontal scrollbar takes room from the labels');
    for (const name of ['New editor tab in the primary pane', 'New terminal in the primary pane', 'New agent tab in the primary pane']) {
      const b = await page.getByRole('button', { name }).boundingBox();
      assert.ok(b && b.x + b.width <= 1024 && b.x >= box.x + box.width - 1, `${name} is pinned after the tabs`);
    }

    // The newest tab is in view, the first one scrolled out; the menu lists every tab and shows it.
    const inView = async (loc) => {
      const s = await scroller.boundingBox();
      const t = await loc.boundingBox();
      return t.x >= s.x - 1 && t.x + t.width <= s.x + s.width + 1;
    };
    await eventually(async () => assert.equal(await inView(last), true, 'the shown tab is in view'));
    assert.equal(await inView(first), false, 'the first tab is out of view');
    await page.getByRole('button', { name: 'All tabs of the primary pane' }).click();
    const menu = page.getByRole('menu', { name: 'All tabs of the primary pane' });
    await menu.waitFor();
    assert.equal(await menu.getByRole('menuitemradio').count(), ids.length, 'every tab is listed');
    await menu.locator(`[data-menu-tab="${ids[0]}"]`).click();
    await menu.waitFor({ state: 'detached' });
    await eventually(async () => assert.equal(await first.getAttribute('aria-selected'), 'true'));
    await eventually(async () => assert.equal(await inView(first), true, 'the picked tab scrolled into view'));
    await eventually(async () => assert.equal((await layout()).primaryTabId, ids[0]));
    assert.deepEqual(pageErrors, []);
  });
});
