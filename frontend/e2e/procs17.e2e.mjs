// End-to-end test of issue 17's terminal restore, with the real backend
// (the `-tags dev` binary, harness.mjs) and the window's UI in
// /usr/bin/chromium driven by playwright-core: a terminal tab's output
// survives a restart of the app — the runtime saves the terminal's
// scrollback when it stops (0600, under user data), and after the restart
// the tab shows it read-only above a new, working shell in the same folder,
// saying the session ended when meith quit (without an internal id).
//
//   E2E_FILES=frontend/e2e/procs17.e2e.mjs bash scripts/e2e.sh
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { App, cli, openWindow, eventually as poll, stateSnapshot, tidyUp, terminalView, terminalDiagnosis } from './harness.mjs';

const eventually = (fn, ms = 20_000) => poll(fn, ms);

let app;
let browser;
let page;

let snapshot;

before(async () => {
  // A plain /bin/sh keeps the test independent of the machine's bash start-up files.
  process.env.SHELL = '/bin/sh';
  app = await App.start();
  snapshot = await stateSnapshot();
  ({ browser, page } = await openWindow({ timeout: 15_000 }));
});

after(async () => {
  if (page && snapshot) await tidyUp(page, snapshot).catch((err) => console.error('tidy up:', err));
  await browser?.close();
  await app?.stop();
});

const view = () => page.locator('.terminal[data-terminal-id^="term_"]');
const rows = async () => (await view().locator('.xterm-rows > div').allTextContents()).map((r) => r.trim());

/** Waits until the window and the engine agree on the tab's one running terminal; returns its id. */
async function settledTerminal() {
  const settled = async () => {
    const tabs = (await cli('app_get_state')).workspaceTabs.filter((t) => t.kind === 'terminal');
    assert.equal(tabs.length, 1, JSON.stringify(tabs));
    const live = (await cli('list_terminals')).filter((t) => t.status === 'running');
    assert.deepEqual(live.map((t) => t.id), [tabs[0].terminalId], 'one running terminal, the bound one');
    assert.equal(await view().getAttribute('data-terminal-id'), tabs[0].terminalId);
    return tabs[0].terminalId;
  };
  // The dev binary's own window shows the same tab: both views attach, the last binding wins.
  for (let tries = 0; ; tries++) {
    const id = await eventually(settled);
    await new Promise((r) => setTimeout(r, 1000));
    if ((await settled().catch(() => '')) === id) return id;
    assert.ok(tries < 5, 'the views settle on one terminal');
  }
}

async function typeLine(text) {
  await view().locator('.xterm').click();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

describe('a terminal tab after a restart of the app', { concurrency: false }, () => {
  let firstId;

  test('keeps its scrollback above a new shell in the same folder, and says the session ended with meith', { timeout: 180_000 }, async () => {
    // A terminal tab (in the space's folder), with some output.
    await page.getByRole('tablist', { name: 'Primary pane tabs' }).getByRole('button', { name: 'New terminal in the primary pane' }).click();
    await terminalView(page);
    firstId = await settledTerminal();
    const cwd = (await cli('list_terminals')).find((t) => t.id === firstId).cwd;
    await typeLine('echo before-$((40+2))-quit');
    await eventually(async () => assert.ok((await rows()).includes('before-42-quit'), (await rows()).filter(Boolean).join('\n')));

    // meith quits: the scrollback is saved, readable by the user only.
    const stopped = await app.stop();
    assert.equal(stopped.code, 0, `the app exited with ${JSON.stringify(stopped)}`);
    const saved = join(process.env.MEITH_USER_DATA, 'terminal-scrollback');
    const files = readdirSync(saved).filter((f) => f.endsWith('.scrollback'));
    assert.deepEqual(files, [`${firstId}.scrollback`]);
    assert.equal(statSync(join(saved, files[0])).mode & 0o777, 0o600);

    // meith starts again; the window reconnects.
    app = await App.start();
    await page.reload();
    await terminalView(page);
    const secondId = await settledTerminal();
    assert.notEqual(secondId, firstId);

    // The old output, then the note, then the new shell — in the same folder.
    const note = view().getByRole('status');
    await note.waitFor().catch(async (err) => {
      throw new Error(`${err.message}\n${await terminalDiagnosis(page)}`);
    });
    const said = (await note.textContent()).trim();
    assert.match(said, /^This terminal's session ended when meith quit\./);
    assert.doesNotMatch(said, /term_/);
    await eventually(async () => {
      const r = await rows();
      const old = r.indexOf('before-42-quit');
      const ended = r.findIndex((x) => x.includes("This terminal's session ended when meith quit."));
      assert.ok(old >= 0 && ended > old, r.filter(Boolean).join('\n'));
    });
    await typeLine('echo after-$((1+1))-restart; pwd');
    await eventually(async () => {
      const r = await rows();
      const ended = r.findIndex((x) => x.includes("This terminal's session ended when meith quit."));
      const answer = r.indexOf('after-2-restart');
      assert.ok(answer > ended, r.filter(Boolean).join('\n'));
      assert.equal(r[answer + 1], cwd, 'the new shell runs in the same folder');
    });
    // Typing dismissed the note.
    await note.waitFor({ state: 'detached' });
    // The saved copy was taken: the next quit saves the new terminal only.
    assert.deepEqual(readdirSync(saved).filter((f) => f.endsWith('.scrollback')), []);
  });
});
