// End-to-end test of a browser tab as developer tools (issue 17, items 12
// and 13): the real backend runs its own Chromium for the page served by
// this file on 127.0.0.1; the window's UI runs in /usr/bin/chromium driven
// by playwright-core. The drawer's Console panel shows the page's console
// lines (objects previewed) and filters them by level; the Network panel
// opens a request's details (status, headers, a secret header redacted); a
// confirm() opened by a click on the live view shows as a sheet in the pane
// and its answer reaches the page.
//
//   (cd frontend && npm run build) && E2E_FILES=frontend/e2e/devtools.e2e.mjs bash scripts/e2e.sh
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { App, callAsWindow, cli, openWindow, eventually as poll, stateSnapshot, tidyUp } from './harness.mjs';

const eventually = (fn, ms = 10_000) => poll(fn, ms);

const PAGE = `<!doctype html><title>Devtools test</title>
<style>html,body{margin:0;height:100%;background:#fff}#ask{position:absolute;left:40px;top:40px;width:220px;height:60px;font-size:20px}</style>
<button id="ask" onclick="document.title = 'answered:' + confirm('Proceed with the deploy?')">Ask</button>
<script>
  console.log('hello', {a: 1, b: 'x'});
  console.warn('careful now');
  console.error('something broke');
  fetch('/api/items?q=1', {headers: {Authorization: 'Bearer very-secret', 'X-Trace': 'abc'}});
</script>`;

let server;
let origin;
let app;
let browser;
let page;
let pageErrors = [];

let snapshot;

before(async () => {
  server = createServer((req, res) => {
    const path = new globalThis.URL(req.url, 'http://x').pathname;
    if (path === '/dev') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return res.end(PAGE);
    }
    if (path === '/api/items') {
      res.writeHead(201, { 'Content-Type': 'application/json', 'X-Served-By': 'e2e' });
      return res.end(JSON.stringify({ items: [1, 2, 3] }));
    }
    res.writeHead(404);
    res.end('not found');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${server.address().port}`;
  app = await App.start();
  snapshot = await stateSnapshot();
  ({ browser, page, pageErrors } = await openWindow({ timeout: 15_000 }));
});

after(async () => {
  if (page && snapshot) await tidyUp(page, snapshot).catch((err) => console.error('tidy up:', err));
  await browser?.close();
  await app?.stop();
  server?.close();
});

/** Calls a tool as the window does (the renderer caller). */
const windowCall = (tool, args) => callAsWindow(page, tool, args);

describe('devtools panels and JavaScript dialogs with the real backend', { concurrency: false }, () => {
  let tabId;

  test('the Console panel shows the page console lines and filters them by level', { timeout: 60_000 }, async () => {
    const opened = await windowCall('open_browser_tab', { url: `${origin}/dev` });
    assert.equal(opened.ok, true, JSON.stringify(opened));
    tabId = opened.content.id;
    await page.getByRole('tablist', { name: 'Primary pane tabs' }).getByRole('tab', { name: /Devtools test/ }).waitFor();
    await page.locator(`canvas[data-tab-id="${tabId}"]`).waitFor();

    if (!(await page.getByRole('tablist', { name: 'Drawer panels' }).isVisible())) await page.keyboard.press('Control+j');
    await page.getByRole('tablist', { name: 'Drawer panels' }).getByRole('tab', { name: 'Console' }).click();
    const panel = page.getByTestId('console-panel');
    const lines = () => panel.locator('.row .msg').allTextContents();
    await eventually(async () => {
      const got = await lines();
      assert.ok(got.includes("hello {a: 1, b: 'x'}"), `console lines: ${JSON.stringify(got)}`);
      assert.ok(got.includes('careful now') && got.includes('something broke'), `console lines: ${JSON.stringify(got)}`);
    });
    // Only errors: the log and warn levels off.
    await panel.getByRole('button', { name: /^log/ }).click();
    await panel.getByRole('button', { name: /^warn/ }).click();
    await eventually(async () => {
      const got = await lines();
      assert.ok(got.includes('something broke') && !got.includes('careful now') && !got.some((l) => l.startsWith('hello')), JSON.stringify(got));
      assert.deepEqual([...new Set(await panel.locator('.row').evaluateAll((rows) => rows.map((r) => r.dataset.level)))], ['error']);
    });
    await panel.getByRole('button', { name: /^log/ }).click();
    await panel.getByRole('button', { name: /^warn/ }).click();
  });

  test('the Network panel opens a request with its status and headers, secrets redacted', { timeout: 60_000 }, async () => {
    await page.getByRole('tablist', { name: 'Drawer panels' }).getByRole('tab', { name: 'Network' }).click();
    const panel = page.getByTestId('network-panel');
    const row = panel.locator('.req', { hasText: 'items?q=1' });
    await row.waitFor();
    await row.click();
    const detail = panel.getByRole('region', { name: 'Request details' });
    await eventually(async () => assert.equal(await detail.getByTestId('detail-status').textContent(), '201 Created'));
    const response = await detail.getByLabel('Response headers').textContent();
    assert.match(response, /X-Served-Bye2e/);
    const request = await detail.getByLabel('Request headers').textContent();
    assert.match(request, /X-Traceabc/i);
    assert.match(request, /Authorization\[redacted\]/i);
    assert.doesNotMatch(request, /very-secret/);
  });

  test('a confirm() opened by a click on the live view is answered in the pane', { timeout: 60_000 }, async () => {
    const st = await windowCall('get_browser_state', { tabId });
    assert.equal(st.ok, true, JSON.stringify(st));
    const ask = st.content.elements.find((e) => e.tag === 'button' && /Ask/.test(e.text ?? e.label ?? ''));
    assert.ok(ask?.bounds, `the Ask button in ${JSON.stringify(st.content.elements)}`);
    const box = await page.locator(`canvas[data-tab-id="${tabId}"]`).boundingBox();
    await page.mouse.click(box.x + ask.bounds.x + ask.bounds.width / 2, box.y + ask.bounds.y + ask.bounds.height / 2);

    const sheet = page.getByRole('alertdialog');
    await sheet.waitFor();
    assert.match(await sheet.textContent(), /Proceed with the deploy\?/);
    // The page waits: nobody answered for the user.
    const open = await cli('get_browser_dialog', '--tabId', tabId);
    assert.equal(open.dialog?.type, 'confirm', JSON.stringify(open));
    await sheet.getByRole('button', { name: 'OK' }).click();
    await sheet.waitFor({ state: 'detached' });
    await page.getByRole('tablist', { name: 'Primary pane tabs' }).getByRole('tab', { name: /answered:true/ }).waitFor();
    assert.deepEqual(pageErrors, []);
  });
});
