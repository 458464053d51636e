// End-to-end test of the live browser tab: the real backend (the `-tags dev`
// binary, harness.mjs) runs its own Chromium for the page; the window's UI
// runs in /usr/bin/chromium driven by playwright-core. The page under test
// is served by this file on 127.0.0.1. The test opens it with Ctrl+T and the
// address bar, waits for the live view's canvas to show it, clicks a button
// ON THE CANVAS, types into an input on the canvas, and checks that the page
// reacted both on the canvas (pixels) and in the page itself (through the
// window's own tool calls), then goes back and forward and closes the tab.
//
//   bash scripts/e2e.sh
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { App, callAsWindow, cli, openWindow, eventually as poll } from './harness.mjs';

/** Polls like the harness, with the longer default a page load needs. */
const eventually = (fn, ms = 10_000) => poll(fn, ms);

// A 16×16 orange PNG: the first page's favicon.
const ICON = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAF0lEQVR4nGP438NAEiJN9aiGUQ1DSgMA/YOLELHsQkgAAAAASUVORK5CYII=',
  'base64',
);

const GREEN = [0, 128, 0];
const RED = [200, 0, 0];
const BLUE = [0, 0, 200];

const PAGES = {
  '/first': `<!doctype html><html><head><title>Live test</title><link rel="icon" href="/icon.png">
<style>html,body{margin:0;height:100%;background:rgb(${GREEN})}
#b{position:absolute;left:40px;top:120px;width:200px;height:60px;font-size:20px}
#i{position:absolute;left:40px;top:220px;width:300px;height:30px;font-size:18px}</style></head>
<body><h1 id="h">Before</h1>
<button id="b" onclick="document.getElementById('h').textContent='After';document.body.style.background='rgb(${RED})';document.title='Live test clicked'">Change</button>
<input id="i" aria-label="Note"></body></html>`,
  '/second': `<!doctype html><title>Second</title><style>html,body{margin:0;height:100%;background:rgb(${BLUE})}</style><p>second page</p>`,
};

let server;
let origin;
let app;
let browser;
let page;
let pageErrors = [];

before(async () => {
  server = createServer((req, res) => {
    const path = new globalThis.URL(req.url, 'http://x').pathname;
    if (path === '/icon.png') {
      res.writeHead(200, { 'Content-Type': 'image/png' });
      return res.end(ICON);
    }
    const body = PAGES[path];
    res.writeHead(body ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  origin = `127.0.0.1:${server.address().port}`;
  app = await App.start();
  ({ browser, page, pageErrors } = await openWindow({ timeout: 15_000 }));
});

after(async () => {
  await browser?.close();
  await app?.stop();
  server?.close();
});

/** Calls a tool as the window does (the renderer caller). */
const windowCall = (tool, args) => callAsWindow(page, tool, args);

/** Evaluates JavaScript in the browser tab's page (cdp_command, as the window). */
async function inPage(tabId, expression) {
  const r = await windowCall('cdp_command', { tabId, method: 'Runtime.evaluate', params: { expression, returnByValue: true } });
  assert.equal(r.ok, true, JSON.stringify(r));
  return r.content.result.result.value;
}

/** The RGB of the live view's canvas at a point (CSS pixels of the canvas). */
function canvasPixel(x, y) {
  return page.evaluate(
    ([x, y]) => {
      const c = document.querySelector('canvas[data-tab-id]');
      const s = c.width / c.getBoundingClientRect().width;
      return [...c.getContext('2d').getImageData(Math.round(x * s), Math.round(y * s), 1, 1).data.slice(0, 3)];
    },
    [x, y],
  );
}

const near = (got, want, tol = 40) => got.every((v, i) => Math.abs(v - want[i]) <= tol);

async function waitPixel(x, y, want, what) {
  try {
    await eventually(async () => {
      const got = await canvasPixel(x, y);
      assert.ok(near(got, want), `${what}: canvas pixel (${x},${y}) is ${got}, want ~${want}`);
    });
  } catch (err) {
    // Say which side is behind: the page itself, or the live view of it.
    const view = await page.evaluate(() => ({ ...window.__meithBrowserView, ago: performance.now() - window.__meithBrowserView.lastFrameAt }));
    const rec = await browserTab().catch((e) => String(e));
    const inside = await windowCall('cdp_command', { tabId: rec.id, method: 'Runtime.evaluate',
      params: { expression: 'location.href + " " + getComputedStyle(document.body).backgroundColor', returnByValue: true } }).catch((e) => String(e));
    err.message += `\n  live view: ${JSON.stringify(view)}\n  record: ${JSON.stringify(rec)}\n  page: ${JSON.stringify(inside?.content?.result?.result?.value ?? inside)}`;
    throw err;
  }
}

/** The backend's record of the only browser tab of the active space. */
async function browserTab() {
  const st = await cli('app_get_state');
  const tabs = st.browserTabs.filter((t) => t.spaceId === st.activeSpaceId);
  assert.equal(tabs.length, 1, `one browser tab: ${JSON.stringify(tabs)}`);
  return tabs[0];
}

describe('the live browser tab with the real backend', { concurrency: false }, () => {
  let tabId;

  test('Ctrl+T opens a tab with its address bar focused; typing a URL and Enter loads the page into the canvas', { timeout: 60_000 }, async () => {
    await page.getByRole('heading', { name: 'No browser tab' }).waitFor();
    await page.keyboard.press('Control+t');
    const address = page.getByRole('textbox', { name: 'Address' });
    await address.waitFor();
    await eventually(async () => assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Address'));
    tabId = (await browserTab()).id;
    assert.match(tabId, /^btab_/);

    await page.keyboard.type(`${origin}/first`); // no scheme: the backend infers http:// for 127.0.0.1
    await page.keyboard.press('Enter');
    const strip = page.getByRole('tablist', { name: 'Primary pane tabs' });
    await strip.getByRole('tab', { name: /Live test/ }).waitFor();
    await eventually(async () => assert.equal(await address.inputValue(), `http://${origin}/first`));
    // The favicon shows in the strip.
    await eventually(async () => assert.match((await strip.locator('img.favicon').getAttribute('src')) ?? '', /\/icon\.png$/));
    const rec = await browserTab();
    assert.equal(rec.loadState, 'complete');
    assert.equal(rec.canGoBack, true); // about:blank is behind it

    // The canvas shows the page, laid out for the pane (1:1 in CSS pixels).
    await waitPixel(20, 300, GREEN, 'the page background');
    await eventually(async () => {
      const v = await page.evaluate(() => {
        const r = document.querySelector('canvas[data-tab-id]').getBoundingClientRect();
        return { w: Math.round(r.width), h: Math.round(r.height), s: window.__meithBrowserView };
      });
      assert.equal(v.s.tabId, tabId);
      assert.ok(v.s.framesDrawn > 0);
      assert.deepEqual([v.s.deviceWidth, v.s.deviceHeight], [v.w, v.h]);
    });
  });

  test('a click on the canvas clicks the page; keys typed on the canvas reach its input', { timeout: 60_000 }, async () => {
    const st = await windowCall('get_browser_state', { tabId });
    assert.equal(st.ok, true, JSON.stringify(st));
    const button = st.content.elements.find((e) => e.tag === 'button' && /Change/.test(e.text ?? e.label ?? ''));
    assert.ok(button?.bounds, `the button in ${JSON.stringify(st.content.elements)}`);
    const box = await page.locator('canvas[data-tab-id]').boundingBox();
    const b = button.bounds;
    await page.mouse.click(box.x + b.x + b.width / 2, box.y + b.y + b.height / 2);

    await waitPixel(20, 300, RED, 'the background after the click');
    assert.equal(await inPage(tabId, "document.getElementById('h').textContent"), 'After');
    await page.getByRole('tablist', { name: 'Primary pane tabs' }).getByRole('tab', { name: /Live test clicked/ }).waitFor();
    assert.equal((await browserTab()).title, 'Live test clicked');

    // Typing: click into the input on the canvas, then type.
    const input = (await windowCall('get_browser_state', { tabId })).content.elements.find((e) => e.tag === 'input');
    await page.mouse.click(box.x + input.bounds.x + 10, box.y + input.bounds.y + input.bounds.height / 2);
    await page.keyboard.type('Hi there!');
    await page.keyboard.press('Backspace');
    await eventually(async () => assert.equal(await inPage(tabId, "document.getElementById('i').value"), 'Hi there'));
    // Ctrl+J on the canvas goes to meith (the drawer), not to the page.
    await page.keyboard.press('Control+j');
    await page.getByRole('button', { name: 'Toggle drawer', pressed: true }).waitFor();
    await page.keyboard.press('Control+j');
  });

  test('back and forward follow the page history', { timeout: 60_000 }, async () => {
    const address = page.getByRole('textbox', { name: 'Address' });
    await address.click();
    await page.keyboard.type(`http://${origin}/second`);
    await page.keyboard.press('Enter');
    await waitPixel(20, 300, BLUE, 'the second page');
    await eventually(async () => assert.equal(await address.inputValue(), `http://${origin}/second`));
    const back = page.getByRole('button', { name: 'Back' });
    const forward = page.getByRole('button', { name: 'Forward' });
    assert.equal(await forward.isDisabled(), true);

    await back.click();
    await eventually(async () => assert.equal(await address.inputValue(), `http://${origin}/first`));
    await eventually(async () => assert.equal(await forward.isDisabled(), false));
    await eventually(async () => assert.ok(!near(await canvasPixel(20, 300), BLUE), 'the first page again'));

    await forward.click();
    await waitPixel(20, 300, BLUE, 'forward to the second page');
    await eventually(async () => assert.equal(await address.inputValue(), `http://${origin}/second`));
    assert.equal((await browserTab()).canGoForward, false);
  });

  test('closing the tab removes it and brings back the empty state', { timeout: 30_000 }, async () => {
    await page.getByRole('button', { name: /^Close Second/ }).click();
    await eventually(async () => {
      const st = await cli('app_get_state');
      assert.equal(st.browserTabs.filter((t) => t.spaceId === st.activeSpaceId).length, 0);
    });
    await page.getByRole('heading', { name: 'No browser tab' }).waitFor();
    assert.equal(await page.locator('canvas[data-tab-id]').count(), 0);
  });

  test('no unexpected page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
