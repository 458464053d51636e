// End-to-end test of processes in the window, with the real backend (the
// `-tags dev` binary, harness.mjs) and the window's UI in /usr/bin/chromium
// driven by playwright-core:
//   - the Processes panel's Run form starts a real dev server (a tiny node
//     HTTP server that prints its port); the status bar says "1 running
//     :PORT", the Output panel shows its lines (stderr marked), the port
//     offer appears; Stop stops it, and the status bar and panel say so;
//   - a terminal tab runs a real shell: typing `echo meith-e2e` + Enter
//     shows the answer in xterm's rows (and in the terminal's scrollback,
//     read with the CLI); closing the tab closes the terminal.
//
//   bash scripts/e2e.sh
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, cli, openWindow, eventually as poll, terminalView } from './harness.mjs';

const eventually = (fn, ms = 15_000) => poll(fn, ms);

// The dev server: listens on a free port, says where (as dev servers do),
// writes a line to stderr, and answers every request.
const SERVER = `const http = require('node:http');
const s = http.createServer((req, res) => res.end('hello from the meith e2e server'));
s.listen(0, '127.0.0.1', () => {
  console.log('\\x1b[32mready\\x1b[0m - listening on http://localhost:' + s.address().port);
  console.error('warn: this line goes to stderr');
});
process.on('SIGTERM', () => { console.log('shutting down'); s.close(() => process.exit(0)); });
`;

let app;
let browser;
let page;
let dir;
let pageErrors = [];

before(async () => {
  // Terminals run $SHELL: a plain /bin/sh keeps the test independent of the
  // machine's bash start-up files (a slow or stuck ~/.bashrc).
  process.env.SHELL = '/bin/sh';
  dir = mkdtempSync(join(tmpdir(), 'meith-e2e-proc-'));
  writeFileSync(join(dir, 'server.js'), SERVER);
  app = await App.start();
  ({ browser, page, pageErrors } = await openWindow({ timeout: 15_000 }));
});

after(async () => {
  await browser?.close();
  await app?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const drawer = () => page.getByRole('region', { name: 'Bottom drawer' });

async function openDrawerOn(tab) {
  if ((await drawer().count()) === 0) await page.getByRole('button', { name: 'Toggle drawer' }).click();
  await drawer().getByRole('tab', { name: tab }).click();
}

describe('processes in the window with the real backend', { concurrency: false }, () => {
  let port;
  let serverId;

  test('Run… starts a dev server: the status bar shows its port, the Output panel its lines', { timeout: 60_000 }, async () => {
    await openDrawerOn('Processes');
    const panel = drawer().getByRole('tabpanel', { name: 'Processes' });
    await panel.getByRole('button', { name: 'Run…' }).click();
    const form = panel.getByRole('form', { name: 'Run a dev server' });
    await form.getByRole('textbox', { name: 'Command' }).fill('node server.js');
    await form.getByRole('textbox', { name: 'Folder' }).fill(dir);
    await form.getByRole('button', { name: 'Run' }).click();

    // The status bar: "1 running :PORT".
    const status = page.getByRole('button', { name: /^1 running :\d+$/ });
    await status.waitFor();
    port = Number((await status.textContent()).trim().split(':')[1]);
    assert.ok(port > 0);
    const res = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(await res.text(), 'hello from the meith e2e server');
    const servers = await cli('list_dev_servers');
    const srv = servers.find((s) => s.port === port);
    assert.ok(srv, JSON.stringify(servers));
    assert.equal(srv.cwd, dir);
    serverId = srv.id;

    // showOutputOnRun (on by default) put the drawer on Output, on this server.
    const output = drawer().getByRole('tabpanel', { name: 'Output' });
    await output.waitFor();
    const selected = output.getByRole('option', { selected: true });
    assert.match((await selected.textContent()).replace(/\s+/g, ' '), new RegExp(`node server\\.js :${port}`));
    const log = output.getByRole('log');
    await log.getByText(`ready - listening on http://localhost:${port}`).waitFor(); // ANSI colors stripped
    await log.locator('.row.stderr', { hasText: 'warn: this line goes to stderr' }).waitFor();

    // The search filters and highlights.
    await output.getByRole('searchbox', { name: 'Search output' }).fill('stderr');
    await eventually(async () => assert.equal(await log.locator('.row').count(), 1));
    assert.equal(await log.locator('mark').first().textContent(), 'stderr');
    await output.getByRole('searchbox', { name: 'Search output' }).fill('');

    // devServerOpenBrowser is "offer": a banner offers the page.
    const offers = page.getByRole('region', { name: 'Dev server ports' });
    await offers.getByText(`listens on :${port}`).waitFor();
    await offers.getByRole('button', { name: 'Dismiss' }).click();
    await offers.waitFor({ state: 'detached' });
  });

  test('the status bar opens the Output panel; the Processes panel lists and stops the server', { timeout: 60_000 }, async () => {
    await drawer().getByRole('tab', { name: 'Logs' }).click();
    await page.getByRole('button', { name: `1 running :${port}` }).click();
    await drawer().getByRole('tabpanel', { name: 'Output' }).waitFor();

    await drawer().getByRole('tab', { name: 'Processes' }).click();
    const row = drawer().locator(`tr[data-id="${serverId}"]`);
    await row.waitFor();
    const text = (await row.textContent()).replace(/\s+/g, ' ');
    assert.match(text, /node server\.js/);
    assert.match(text, new RegExp(`:${port}`));
    assert.match(text, /running/);
    await row.getByRole('button', { name: 'Stop node server.js' }).click();

    await page.getByRole('button', { name: /running :/ }).waitFor({ state: 'detached' });
    await eventually(async () => {
      const s = (await cli('list_dev_servers')).find((x) => x.id === serverId);
      assert.ok(['stopped', 'exited'].includes(s.status), JSON.stringify(s));
    });
    await eventually(async () => assert.match(await row.textContent(), /stopped|exited/));
    await assert.rejects(fetch(`http://127.0.0.1:${port}/`));
  });

  test('a terminal tab runs a shell: typed commands answer in the view; closing the tab closes it', { timeout: 180_000 }, async () => {
    const strip = page.getByRole('tablist', { name: 'Primary pane tabs' });
    await strip.getByRole('button', { name: 'New terminal in the primary pane' }).click();
    const view = await terminalView(page);
    // The view shows the terminal the tab is bound to. (The dev binary's
    // own window shows the same tab: if both started a terminal, the last
    // binding wins, both views follow it and the other one is closed.)
    let terminalId;
    const settled = async () => {
      const st = await cli('app_get_state');
      const tabs = st.workspaceTabs.filter((t) => t.kind === 'terminal');
      assert.equal(tabs.length, 1, JSON.stringify(st.workspaceTabs));
      const live = (await cli('list_terminals')).filter((t) => t.status === 'running');
      assert.deepEqual(live.map((t) => t.id), [tabs[0].terminalId], 'one running terminal, the bound one');
      assert.equal(await view.getAttribute('data-terminal-id'), tabs[0].terminalId);
      assert.equal(await view.getByRole('status').count(), 0, 'the shell has started');
      return tabs[0].terminalId;
    };
    for (let tries = 0; ; tries++) {
      terminalId = await eventually(settled);
      await new Promise((r) => setTimeout(r, 1000));
      if ((await settled().catch(() => '')) === terminalId) break;
      assert.ok(tries < 5, 'the views settle on one terminal');
    }

    await view.locator('.xterm').click();
    await page.keyboard.type('echo meith-$((40+2))-e2e');
    await page.keyboard.press('Enter');
    // The echo's answer (not the typed command line) shows in xterm's rows.
    await eventually(async () => {
      const rows = await view.locator('.xterm-rows > div').allTextContents();
      assert.ok(rows.some((r) => r.trim() === 'meith-42-e2e'), rows.filter((r) => r.trim()).join('\n'));
    }).catch(async (err) => {
      const snap = await cli('get_terminal_snapshot', '--terminalId', terminalId).catch((e) => String(e));
      const shown = await view.getAttribute('data-terminal-id').catch(() => '?');
      const state = (await cli('app_get_state')).workspaceTabs.map((t) => t.terminalId);
      const active = await page.evaluate(() => document.activeElement?.className);
      throw new Error(`${err.message}\nshown ${shown}, bound ${state}, focus ${active}, snapshot ${JSON.stringify(snap).slice(0, 600)}`);
    });
    const snap = await cli('get_terminal_snapshot', '--terminalId', terminalId);
    assert.match(snap.buffer, /meith-42-e2e\r\n/);

    // A flood (50 MB of "y") keeps the window responsive: output is written
    // to xterm in bounded slices per animation frame.
    await page.keyboard.type('yes | head -c 50000000; echo flood-$((6*7))-done');
    const t0 = Date.now();
    await page.keyboard.press('Enter');
    let worstFrame = 0;
    await eventually(async () => {
      const gap = await page.evaluate(
        () => new Promise((resolve) => { const t = performance.now(); requestAnimationFrame(() => resolve(performance.now() - t)); }),
      );
      worstFrame = Math.max(worstFrame, gap);
      const rows = await view.locator('.xterm-rows > div').allTextContents();
      assert.ok(rows.some((r) => r.trim() === 'flood-42-done'), 'the flood ended');
    }, 120_000);
    console.log(`flood: 50 MB in ${Date.now() - t0} ms, worst frame wait ${Math.round(worstFrame)} ms`);
    assert.ok(worstFrame < 1000, `a frame waited ${worstFrame} ms during the flood`);
    // The PTY has the view's size (the fit addon, then TerminalResize).
    const t = (await cli('list_terminals')).find((x) => x.id === terminalId);
    assert.ok(t.cols > 80 && t.rows > 10, `terminal size ${t.cols}×${t.rows}`);

    await strip.getByRole('button', { name: /^Close Terminal/ }).click();
    await view.waitFor({ state: 'detached' });
    await eventually(async () => assert.ok(!(await cli('list_terminals')).some((x) => x.id === terminalId), 'the terminal is closed'));
  });

  test('no unexpected page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
