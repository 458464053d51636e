// End-to-end tests of the UI against the real Go backend: the `-tags dev`
// binary serves the frontend with live bindings (harness.mjs starts and
// restarts it), playwright-core drives /usr/bin/chromium, the headless CLI
// binary checks that the runtime agrees with what the page shows, and
// xdotool answers the native folder dialog on the X display.
//
//   bash scripts/e2e.sh
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, cli, openWindow, env, eventually } from './harness.mjs';

const BIN = env.cli;
const execFileP = promisify(execFile);

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

let app;
let browser;
let page;
let pageErrors = [];
const children = [];

/** Waits until the page shows the state (the rail lists the spaces). */
async function pageReady() {
  await page.getByRole('navigation', { name: 'Spaces' }).getByRole('button', { name: /^Space / }).first().waitFor();
}

/** The active space and its tabs, from the backend. */
async function activeSpace() {
  const st = await cli('app_get_state');
  const space = st.spaces.find((s) => s.id === st.activeSpaceId);
  const tabs = st.workspaceTabs.filter((t) => t.spaceId === space.id);
  return { space, layout: space.layout, tabs, settings: st.settings, pane: (id) => tabs.find((t) => t.id === id)?.pane };
}

/** Drags from the center of one element to a point (or the center of another), in small steps like a hand would. */
async function drag(from, to) {
  const a = await from.boundingBox();
  const b = 'x' in to ? to : await to.boundingBox().then((r) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 }));
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 12; i++) {
    await page.mouse.move(a.x + a.width / 2 + ((b.x - a.x - a.width / 2) * i) / 12, a.y + a.height / 2 + ((b.y - a.y - a.height / 2) * i) / 12);
  }
  await page.mouse.up();
}

before(async () => {
  app = await App.start();
  ({ browser, page, pageErrors } = await openWindow({ timeout: 10_000 }));
});

after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await browser?.close();
  await app?.stop();
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
    const strip = page.getByRole('tablist', { name: 'Primary pane tabs' });
    const tabs = strip.getByRole('tab');
    const n = await tabs.count();
    const count = (want) =>
      page.waitForFunction(
        (want) => document.querySelectorAll('[role="tablist"][aria-label="Primary pane tabs"] [role="tab"]').length === want,
        want,
      );

    await strip.getByRole('button', { name: 'New editor tab in the primary pane' }).click();
    await count(n + 1);
    const tab = tabs.nth(n);
    await page.waitForFunction((i) => document.querySelectorAll('[aria-label="Primary pane tabs"] [role="tab"]')[i]?.getAttribute('aria-selected') === 'true', n);
    const title = (await tab.textContent()).replace(/\s+/g, ' ').trim();
    assert.match(title, /Editor/);

    await strip.getByRole('button', { name: /^Close / }).nth(n).click();
    await count(n);
  });

  test('logs: the drawer\'s Logs panel shows new entries live', { timeout: 30_000 }, async () => {
    const drawer = page.getByRole('region', { name: 'Bottom drawer' });
    const wasOpen = (await activeSpace()).layout.drawerOpen;
    if (!wasOpen) await page.keyboard.press('Control+j');
    await drawer.getByRole('tab', { name: 'Logs' }).click();
    await drawer.getByText(/entries · live/).waitFor();
    // A failing CLI call is logged by the runtime; the panel shows it without a refresh.
    const marker = `e2e_missing_tool_${process.pid}_${Date.now()}`;
    await execFileP(BIN, ['call', marker], { timeout: 15_000 }).catch(() => {});
    await drawer.getByText(marker).first().waitFor({ timeout: 5_000 });
    if (!wasOpen) {
      await page.keyboard.press('Control+j');
      await drawer.waitFor({ state: 'detached' });
    }
  });

  test('split: Ctrl+\\ splits, tabs drag between panes, the divider resizes, the right edge splits', { timeout: 60_000 }, async () => {
    // A fresh space with three editor tabs. The new space must be the active
    // one in the backend and in the page before a tab is added: an empty
    // space active before the click would pass a bare "no tabs" check.
    const known = new Set((await cli('list_spaces')).spaces.map((s) => s.id));
    await page.getByRole('navigation', { name: 'Spaces' }).getByRole('button', { name: 'New space' }).click();
    const primary = page.getByRole('tablist', { name: 'Primary pane tabs' });
    const secondary = page.getByRole('tablist', { name: 'Secondary pane tabs' });
    await eventually(async () => {
      const s = await activeSpace();
      assert.ok(!known.has(s.space.id), 'the new space is active');
      assert.equal(s.tabs.length, 0);
    });
    const fresh = (await activeSpace()).space.id;
    await page.waitForFunction((id) => document.querySelector('[aria-label="Spaces"] [aria-current="true"]')?.getAttribute('data-space-id') === id, fresh);
    for (let i = 1; i <= 3; i++) {
      await primary.getByRole('button', { name: 'New editor tab in the primary pane' }).click();
      await eventually(async () => assert.equal((await activeSpace()).tabs.length, i));
    }
    const [t1, t2, t3] = (await activeSpace()).tabs.map((t) => t.id);

    // Ctrl+\ moves the shown tab (the newest) into a new right pane.
    await page.keyboard.press('Control+Backslash');
    await eventually(async () => {
      const s = await activeSpace();
      assert.equal(s.layout.split, true);
      assert.deepEqual([s.pane(t1), s.pane(t2), s.pane(t3)], ['primary', 'primary', 'secondary']);
    });
    await secondary.getByRole('tab').first().waitFor();

    // Drag the first tab from the left strip into the right pane.
    await drag(primary.locator(`[data-tab-id="${t1}"]`), page.getByRole('region', { name: 'Secondary pane' }));
    await eventually(async () => {
      const s = await activeSpace();
      assert.deepEqual([s.pane(t1), s.pane(t2), s.pane(t3)], ['secondary', 'primary', 'secondary']);
      assert.equal(s.layout.secondaryTabId, t1, 'the dropped tab is shown');
    });
    await page.waitForFunction(() => document.querySelectorAll('[aria-label="Secondary pane tabs"] [role="tab"]').length === 2);

    // Drag the divider to 30 % of the workspace.
    const ws = await page.getByRole('region', { name: 'Workspace' }).boundingBox();
    const divider = page.getByRole('separator', { name: 'Resize panes' });
    await drag(divider, { x: ws.x + ws.width * 0.3, y: ws.y + ws.height / 2 });
    await eventually(async () => {
      const r = (await activeSpace()).layout.splitRatio;
      assert.ok(Math.abs(r - 0.3) < 0.02, `splitRatio ${r}, want about 0.3`);
    });
    assert.equal(await divider.getAttribute('aria-valuenow'), '30');

    // Ctrl+\ again closes the split: every tab is back on the left.
    await page.keyboard.press('Control+Backslash');
    await eventually(async () => {
      const s = await activeSpace();
      assert.equal(s.layout.split, false);
      assert.deepEqual([s.pane(t1), s.pane(t2), s.pane(t3)], ['primary', 'primary', 'primary']);
    });
    await secondary.waitFor({ state: 'detached' });

    // Dropping a tab on the right edge splits again with that tab on the right.
    const tab2 = primary.locator(`[data-tab-id="${t2}"]`);
    const a = await tab2.boundingBox();
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move(a.x + a.width / 2 + 40, a.y + 40, { steps: 4 });
    await page.getByText('Split right').waitFor(); // the drop zone shows while dragging
    await page.mouse.move(ws.x + ws.width - 30, ws.y + ws.height / 2, { steps: 8 });
    await page.mouse.up();
    await eventually(async () => {
      const s = await activeSpace();
      assert.equal(s.layout.split, true);
      assert.deepEqual([s.pane(t1), s.pane(t2), s.pane(t3)], ['primary', 'secondary', 'primary']);
    });

    // Ctrl+W closes the focused pane's tab; the last tab leaving a pane closes the split.
    await page.keyboard.press('Control+w');
    await eventually(async () => {
      const s = await activeSpace();
      assert.equal(s.tabs.length, 2);
      assert.equal(s.layout.split, false);
    });
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
    await page.getByRole('tablist', { name: 'Primary pane tabs' }).waitFor();
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

  test('settings, split and drawer survive a backend restart', { timeout: 90_000 }, async () => {
    // Split the active space, open the drawer and flip a setting, all from the page.
    const primary = page.getByRole('tablist', { name: 'Primary pane tabs' });
    while ((await activeSpace()).tabs.length < 2) {
      const n = (await activeSpace()).tabs.length;
      await primary.getByRole('button', { name: 'New editor tab in the primary pane' }).click();
      await eventually(async () => assert.equal((await activeSpace()).tabs.length, n + 1));
    }
    await page.keyboard.press('Control+Backslash');
    await eventually(async () => assert.equal((await activeSpace()).layout.split, true));
    if (!(await activeSpace()).layout.drawerOpen) await page.keyboard.press('Control+j');
    await page.getByRole('region', { name: 'Bottom drawer' }).waitFor();
    await page.keyboard.press('Control+Comma');
    const sw = page.getByRole('switch', { name: /^Stop servers on close/ });
    const was = await sw.isChecked();
    await sw.click();
    await eventually(async () => assert.equal((await activeSpace()).settings.stopServersOnClose, !was));
    await page.keyboard.press('Escape');
    await eventually(async () => assert.equal((await activeSpace()).layout.drawerOpen, true));
    const before = await activeSpace();

    // Restart the backend with the same user data; the page reconnects on reload.
    const stopped = await app.stop();
    assert.equal(stopped.code, 0, `the app exited with ${JSON.stringify(stopped)}`);
    app = await App.start();
    await page.reload();
    await pageReady();

    const after = await activeSpace();
    assert.equal(after.space.id, before.space.id, 'the same space is active');
    assert.deepEqual(after.layout, before.layout);
    assert.deepEqual(after.settings, before.settings);
    assert.deepEqual(after.tabs.map((t) => [t.id, t.pane]), before.tabs.map((t) => [t.id, t.pane]));
    // …and the page shows it.
    await page.getByRole('tablist', { name: 'Secondary pane tabs' }).waitFor();
    await page.getByRole('region', { name: 'Bottom drawer' }).waitFor();
    assert.equal(
      await page.getByRole('separator', { name: 'Resize panes' }).getAttribute('aria-valuenow'),
      String(Math.round(before.layout.splitRatio * 100)),
    );
    await page.keyboard.press('Control+Comma');
    assert.equal(await page.getByRole('switch', { name: /^Stop servers on close/ }).isChecked(), !was);
    await page.keyboard.press('Escape');
  });

  test('open folder: the native dialog opens a folder as a space, and again reuses it', { timeout: 90_000 }, async () => {
    const folder = join(process.env.MEITH_HOME, 'projects', 'e2e-shop');
    mkdirSync(folder, { recursive: true });
    const want = realpathSync(folder);
    const rail = page.getByRole('navigation', { name: 'Spaces' });

    /** Answers the GTK folder dialog on the X display: type the path, press Enter. */
    async function answerDialog() {
      const { stdout } = await execFileP('xdotool', ['search', '--sync', '--onlyvisible', '--name', '^Open folder as a space$'], {
        timeout: 30_000,
      });
      const win = stdout.trim().split('\n')[0];
      await execFileP('xdotool', ['windowfocus', '--sync', win], { timeout: 10_000 });
      await execFileP('xdotool', ['key', '--clearmodifiers', 'ctrl+l'], { timeout: 10_000 });
      await new Promise((r) => setTimeout(r, 300));
      await execFileP('xdotool', ['type', '--delay', '15', `${want}/`], { timeout: 20_000 });
      await new Promise((r) => setTimeout(r, 300));
      await execFileP('xdotool', ['key', 'Return'], { timeout: 10_000 });
    }

    const count = (await cli('list_spaces')).spaces.length;
    await rail.getByRole('button', { name: 'Open folder' }).click();
    await answerDialog();
    const created = await eventually(async () => {
      const s = await cli('list_spaces');
      const sp = s.spaces.find((x) => x.cwd === want);
      assert.ok(sp, `a space with cwd ${want} in ${JSON.stringify(s.spaces.map((x) => x.cwd))}`);
      assert.equal(s.activeSpaceId, sp.id);
      return sp;
    }, 30_000);
    assert.equal(created.name, 'e2e-shop');
    assert.equal((await cli('list_spaces')).spaces.length, count + 1);
    await page.waitForFunction(() =>
      document.querySelector('nav[aria-label="Spaces"] button[aria-label="Space e2e-shop"][aria-current="true"]'),
    );

    // Opening the same folder from another space switches back to its space.
    await rail.getByRole('button', { name: /^Space / }).first().click();
    await eventually(async () => assert.notEqual((await cli('list_spaces')).activeSpaceId, created.id));
    await rail.getByRole('button', { name: 'Open folder' }).click();
    await answerDialog();
    await eventually(async () => assert.equal((await cli('list_spaces')).activeSpaceId, created.id), 30_000);
    assert.equal((await cli('list_spaces')).spaces.length, count + 1, 'no second space for the same folder');
  });

  test('git header: the changes chip follows edits on disk, opens the Git tab; the branch switcher creates and switches', { timeout: 90_000 }, async () => {
    const repo = join(process.env.MEITH_HOME, 'projects', 'e2e-git');
    mkdirSync(repo, { recursive: true });
    const git = (...args) =>
      execFileP('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.com', '-c', 'init.defaultBranch=main', ...args], {
        cwd: repo, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
      }).then((r) => r.stdout);
    await git('init', '-q');
    writeFileSync(join(repo, 'a.txt'), 'one\n');
    await git('add', 'a.txt');
    await git('commit', '-q', '-m', 'first');

    // Open the repository as a space (through the page's own binding, as the renderer).
    await page.evaluate((cwd) => window.go.app.App.Call('create_space', { name: 'e2e-git', cwd }, {}), realpathSync(repo));
    await page.waitForFunction(() =>
      document.querySelector('nav[aria-label="Spaces"] button[aria-label="Space e2e-git"][aria-current="true"]'),
    );
    const branch = page.getByRole('button', { name: 'Branch main' });
    await branch.waitFor();
    const chip = page.getByRole('button', { name: /changed files? - open Git panel$/ });
    assert.equal(await chip.count(), 0, 'no chip for a clean repository');

    // An edit on disk shows up without any action in the page (the watcher).
    writeFileSync(join(repo, 'a.txt'), 'one\ntwo\n');
    await chip.waitFor({ timeout: 10_000 });
    assert.equal((await chip.textContent()).replace(/\s+/g, ''), '+1−0');
    assert.equal(await chip.getAttribute('title'), '1 changed file - open Git panel');

    // The chip opens the Git tab in the right pane.
    await chip.click();
    await eventually(async () => {
      const s = await activeSpace();
      const tab = s.tabs.find((t) => t.kind === 'git');
      assert.ok(tab, 'a git tab exists');
      assert.equal(tab.pane, 'secondary');
      assert.equal(s.layout.split, true);
    });
    await page.getByRole('tablist', { name: 'Secondary pane tabs' }).getByRole('tab', { name: /Git/ }).waitFor();

    // The branch switcher: create a branch from HEAD and switch to it.
    await branch.click();
    const menu = page.getByRole('dialog', { name: 'Branches' });
    await menu.getByRole('option', { name: /main/ }).waitFor();
    await menu.getByRole('button', { name: 'Create new branch…' }).click();
    await menu.getByLabel('New branch name').fill('e2e-feature');
    await menu.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('button', { name: 'Branch e2e-feature' }).waitFor();
    assert.equal((await git('branch', '--show-current')).trim(), 'e2e-feature');

    // And back to main through the list, filtered as you type.
    await page.getByRole('button', { name: 'Branch e2e-feature' }).click();
    await menu.getByLabel('Filter branches').fill('mai');
    await menu.getByRole('option', { name: /^main/ }).click();
    await page.getByRole('button', { name: 'Branch main' }).waitFor();
    assert.equal((await git('branch', '--show-current')).trim(), 'main');
  });

  test('git tab: a diff on demand, stage a hunk and a line range, unstage, discard with confirmation, commit as a profile', { timeout: 90_000 }, async () => {
    // The e2e-git space of the previous test is active, its Git tab open on the right.
    const repo = realpathSync(join(process.env.MEITH_HOME, 'projects', 'e2e-git'));
    const git = (...args) =>
      execFileP('git', ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.com', ...args], {
        cwd: repo, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
      }).then((r) => r.stdout);
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    writeFileSync(join(repo, 'long.txt'), lines.join('\n') + '\n');
    await git('add', 'long.txt');
    await git('commit', '-q', '-m', 'long');
    lines[1] = 'line 2 changed';
    lines[27] = 'line 28 changed';
    writeFileSync(join(repo, 'long.txt'), lines.join('\n') + '\n');

    const panel = page.getByRole('region', { name: 'Git' });
    const changes = panel.getByRole('list', { name: 'Changed files' });
    const longRow = changes.locator('[data-path="long.txt"]');
    await longRow.waitFor({ timeout: 10_000 });

    // The diff is loaded when the file is clicked.
    await longRow.click();
    const diff = panel.getByRole('region', { name: 'Diff of long.txt' });
    await diff.getByText('line 2 changed').waitFor();
    await diff.getByText('line 28 changed').waitFor();

    // Stage only the first hunk; the index is checked with git.
    await diff.getByRole('button', { name: 'Stage hunk 1' }).click();
    await eventually(async () => {
      const staged = await git('diff', '--cached', 'long.txt');
      assert.match(staged, /\+line 2 changed/);
      assert.doesNotMatch(staged, /line 28 changed/);
      assert.match(await git('diff', 'long.txt'), /\+line 28 changed/);
    });

    // Unstage the file from the Staged list.
    await panel.getByRole('button', { name: 'Unstage long.txt' }).click();
    await eventually(async () => assert.equal(await git('diff', '--cached', '--name-only'), ''));

    // Stage a line range: the two lines of the second change only.
    await changes.locator('[data-path="long.txt"]').click();
    await diff.getByRole('button', { name: 'Select deleted line 28' }).click();
    await diff.getByRole('button', { name: 'Select added line 28' }).click();
    await panel.getByRole('button', { name: 'Stage selected lines' }).click();
    await eventually(async () => {
      const staged = await git('diff', '--cached', 'long.txt');
      assert.match(staged, /\+line 28 changed/);
      assert.doesNotMatch(staged, /line 2 changed/);
    });
    await panel.getByRole('button', { name: 'Unstage long.txt' }).click();
    await eventually(async () => assert.equal(await git('diff', '--cached', '--name-only'), ''));

    // Discard one hunk from the worktree (after the confirmation).
    await changes.locator('[data-path="long.txt"]').click();
    await diff.getByRole('button', { name: 'Discard hunk 1' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Discard changes?' });
    await confirm.getByText('The changes in hunk 1 of long.txt are discarded.', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Discard', exact: true }).click();
    await eventually(async () => {
      const text = readFileSync(join(repo, 'long.txt'), 'utf8');
      assert.match(text, /^line 1\nline 2\n/);
      assert.match(text, /line 28 changed/);
    });
    // The notification offers Undo; dismissed here (it would cover the composer for 12 s).
    await page.getByRole('status').filter({ hasText: 'Discarded changes in hunk 1 of long.txt.' }).getByRole('button', { name: 'Dismiss' }).click();

    // Discarding asks first ("Confirm before restore" is on by default).
    await panel.getByRole('button', { name: 'Discard changes in a.txt' }).click();
    await confirm.getByText('The unstaged changes in a.txt are discarded.', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Discard', exact: true }).click();
    await eventually(async () => assert.equal(readFileSync(join(repo, 'a.txt'), 'utf8'), 'one\n'));
    await page.getByRole('status').filter({ hasText: 'Discarded changes in a.txt.' }).getByRole('button', { name: 'Dismiss' }).click();

    // Commit as an identity profile: author and committer.
    await page.evaluate(() =>
      window.go.app.App.Call('set_app_settings', { settings: { git: {
        identityProfiles: [{ id: 'gitacct_e2e000000001', label: 'Work', name: 'Ada Lovelace', email: 'ada@example.com' }],
        activeIdentityProfileId: 'gitacct_e2e000000001' } } }, {}),
    );
    await panel.getByRole('button', { name: 'Stage all' }).click();
    await eventually(async () => assert.match(await git('diff', '--cached', '--name-only'), /long\.txt/));
    await panel.getByText('Committing as Ada Lovelace <ada@example.com>').waitFor();
    await panel.getByLabel('Commit message').fill('feat: change two lines');
    await panel.getByRole('button', { name: 'Commit', exact: true }).click();
    await eventually(async () =>
      assert.equal(await git('log', '-1', '--format=%s|%an <%ae>|%cn <%ce>'), 'feat: change two lines|Ada Lovelace <ada@example.com>|Ada Lovelace <ada@example.com>\n'),
    );
    await panel.getByText('Working tree clean.').waitFor({ timeout: 10_000 });
  });

  test('no unexpected page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
