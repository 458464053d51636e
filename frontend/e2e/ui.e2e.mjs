// End-to-end tests of the UI against the real Go backend: the `-tags dev`
// binary serves the frontend with live bindings (scripts/e2e.sh starts it),
// playwright-core drives /usr/bin/chromium, and the headless CLI binary
// checks that the runtime agrees with what the page shows.
//
//   bash scripts/e2e.sh
// or, with a dev binary already running:
//   MEITH_E2E_URL=http://127.0.0.1:34115/ MEITH_BIN=build/bin/meith-headless \
//   MEITH_HOME=… MEITH_USER_DATA=… node --test frontend/e2e/*.e2e.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';

const URL = process.env.MEITH_E2E_URL;
const BIN = process.env.MEITH_BIN;
if (!URL || !BIN) throw new Error('set MEITH_E2E_URL and MEITH_BIN (run scripts/e2e.sh)');

const execFileP = promisify(execFile);

/** Runs a read-only CLI call with --json and returns its content. */
async function cli(tool, ...args) {
  const { stdout } = await execFileP(BIN, ['--json', 'call', tool, ...args], { timeout: 15_000 });
  const r = JSON.parse(stdout);
  assert.equal(r.ok, true, `${tool}: ${stdout}`);
  return r.content;
}

/** Polls fn until it stops throwing (or the deadline passes, then rethrows). */
async function eventually(fn, ms = 5_000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Starts a CLI call as a child process; resolves with { code, out } when it exits. */
function startCli(...args) {
  const child = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const done = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
  return { child, done };
}

function withTimeout(p, ms, what) {
  let t;
  return Promise.race([
    p.finally(() => clearTimeout(t)),
    new Promise((_, reject) => (t = setTimeout(() => reject(new Error(`${what}: no result in ${ms} ms`)), ms))),
  ]);
}

// Known harmless noise (docs: toolchain.md §3 item 14): the Wails dev runtime
// throws this in a plain browser.
const HARMLESS = [/Cannot read properties of null \(reading 'nodes'\)/];

let browser;
let page;
const pageErrors = [];
const children = [];

before(async () => {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => {
    if (!HARMLESS.some((re) => re.test(err.message))) pageErrors.push(err.message);
  });
  await page.goto(URL);
  // The state has loaded once the rail shows the default space.
  await page.getByRole('navigation', { name: 'Spaces' }).getByRole('button', { name: /^Space / }).first().waitFor();
});

after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await browser?.close();
});

describe('meith UI with the real backend', { concurrency: false }, () => {
  test('spaces: create, rename, switch, close (the backend agrees)', { timeout: 60_000 }, async () => {
    const rail = page.getByRole('navigation', { name: 'Spaces' });
    const before = await cli('list_spaces');
    const first = before.spaces.find((s) => s.id === before.activeSpaceId);
    assert.ok(first, 'an active space exists');

    // Create with "+": the new space becomes active.
    await rail.getByRole('button', { name: 'New space' }).click();
    const created = await eventually(async () => {
      const s = await cli('list_spaces');
      assert.equal(s.spaces.length, before.spaces.length + 1);
      const n = s.spaces.find((x) => !before.spaces.some((b) => b.id === x.id));
      assert.equal(s.activeSpaceId, n.id);
      return n;
    });
    const createdBtn = rail.getByRole('button', { name: `Space ${created.name}`, exact: true });
    await page.waitForFunction(
      (name) => document.querySelector(`nav[aria-label="Spaces"] button[aria-label="Space ${name}"][aria-current="true"]`),
      created.name,
    );

    // Rename through the context menu.
    const newName = `E2E space ${process.pid}`;
    await createdBtn.click({ button: 'right' });
    const menu = page.getByRole('dialog', { name: `Space ${created.name}` });
    await menu.getByRole('button', { name: 'Rename…' }).click();
    await menu.getByLabel('Rename space').fill(newName);
    await menu.getByRole('button', { name: 'Save' }).click();
    await menu.waitFor({ state: 'detached' });
    const renamedBtn = rail.getByRole('button', { name: `Space ${newName}`, exact: true });
    await renamedBtn.waitFor();
    await eventually(async () => {
      const s = await cli('list_spaces');
      assert.equal(s.spaces.find((x) => x.id === created.id)?.name, newName);
    });

    // Switch back to the first space.
    const firstBtn = rail.getByRole('button', { name: `Space ${first.name}`, exact: true });
    await firstBtn.click();
    await page.waitForFunction(
      (name) => document.querySelector(`nav[aria-label="Spaces"] button[aria-label="Space ${name}"][aria-current="true"]`),
      first.name,
    );
    await eventually(async () => assert.equal((await cli('list_spaces')).activeSpaceId, first.id));

    // Close the renamed space; the menu asks for confirmation first.
    await renamedBtn.click({ button: 'right' });
    const menu2 = page.getByRole('dialog', { name: `Space ${newName}` });
    await menu2.getByRole('button', { name: 'Close space…' }).click();
    await menu2.getByText(`Close “${newName}”?`).waitFor();
    await menu2.getByRole('button', { name: 'Close space', exact: true }).click();
    await renamedBtn.waitFor({ state: 'detached' });
    await eventually(async () => {
      const s = await cli('list_spaces');
      assert.deepEqual(
        s.spaces.map((x) => x.id).sort(),
        before.spaces.map((x) => x.id).sort(),
      );
      assert.equal(s.activeSpaceId, first.id);
    });
  });

  test('workspace tabs: open with "+", close with ×', { timeout: 30_000 }, async () => {
    const strip = page.getByRole('tablist', { name: 'Workspace tabs' });
    const tabs = strip.getByRole('tab');
    const n = await tabs.count();

    await strip.getByRole('button', { name: 'New editor tab' }).click();
    await page.waitForFunction(
      (want) => document.querySelectorAll('[role="tablist"][aria-label="Workspace tabs"] [role="tab"]').length === want,
      n + 1,
    );
    const tab = tabs.nth(n);
    assert.equal(await tab.getAttribute('aria-selected'), 'true', 'the new tab is active');
    const title = (await tab.textContent()).replace(/\s+/g, ' ').trim();
    assert.match(title, /Editor/);

    await strip.getByRole('button', { name: /^Close / }).nth(n).click();
    await page.waitForFunction(
      (want) => document.querySelectorAll('[role="tablist"][aria-label="Workspace tabs"] [role="tab"]').length === want,
      n,
    );
  });

  test('settings: a switch changes the setting in the backend', { timeout: 30_000 }, async () => {
    const before = (await cli('get_app_settings')).settings;
    await page.locator('body').click({ position: { x: 640, y: 400 } });
    await page.keyboard.press('Control+Comma');
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('heading', { name: 'Settings' }).waitFor();

    const sw = page.getByRole('switch', { name: /^Show output on run/ });
    assert.equal(await sw.isChecked(), before.showOutputOnRun);
    await sw.click();
    await eventually(async () => {
      const s = (await cli('get_app_settings')).settings;
      assert.equal(s.showOutputOnRun, !before.showOutputOnRun);
    });
    await page.waitForFunction(
      (want) => {
        const el = [...document.querySelectorAll('input[role="switch"]')].find((x) =>
          x.closest('label')?.textContent?.includes('Show output on run'),
        );
        return el && !el.disabled && el.checked === want;
      },
      !before.showOutputOnRun,
    );

    // Back to the workspace with Escape.
    await page.keyboard.press('Escape');
    await page.getByRole('tablist', { name: 'Workspace tabs' }).waitFor();
  });

  for (const [answer, enabled] of [
    ['Allow once', 'true'],
    ['Deny', 'false'],
  ]) {
    test(`approval prompt: "${answer}" in the page decides a privileged CLI call`, { timeout: 45_000 }, async () => {
      const { child, done } = startCli('call', 'app_set_debug_mode', '--enabled', enabled);
      children.push(child);

      const dialog = page.getByRole('alertdialog', { name: 'A program wants to use a privileged tool' });
      await dialog.waitFor({ timeout: 15_000 });
      await dialog.getByText('app_set_debug_mode').first().waitFor();
      await dialog.getByRole('button', { name: answer, exact: true }).click();

      const r = await withTimeout(done, 15_000, 'the CLI call');
      await dialog.waitFor({ state: 'detached' });
      if (answer === 'Allow once') {
        assert.equal(r.code, 0, r.out);
        const s = (await cli('get_app_settings')).settings;
        assert.equal(s.debugMode, true);
      } else {
        assert.equal(r.code, 1, r.out);
        assert.match(r.out, /PERMISSION_DENIED/);
        const s = (await cli('get_app_settings')).settings;
        assert.equal(s.debugMode, true, 'a denied call changes nothing');
      }
    });
  }

  test('no unexpected page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
