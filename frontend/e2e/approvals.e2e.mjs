// End-to-end test of the approval dialog (issue 17, items 7 and 11) against
// the real Go backend: a privileged CLI call (app_set_debug_mode, writes-files)
// run in a folder opens the dialog, which names where it comes from, offers
// the scopes as buttons and takes the keyboard (Tab stays inside, Enter allows
// once, Escape denies); "Always in this folder" lets the next call from that
// folder through without asking, and the rule is listed and revoked in
// Settings → General.
//
//   E2E_FILES=frontend/e2e/approvals.e2e.mjs bash scripts/e2e.sh
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, openWindow, runCLI, stateSnapshot, tidyUp } from './harness.mjs';

let app;
let browser;
let page;
let pageErrors = [];
let dir;
const children = [];

/** Runs `meith call app_set_debug_mode --enabled <v>` in dir; resolves with { code, out }. */
const setDebug = (enabled) => runCLI(['call', 'app_set_debug_mode', '--enabled', String(enabled)], { cwd: dir, children });

const dialog = () => page.getByRole('alertdialog', { name: 'A program wants to use a privileged tool' });
const focusInDialog = () => page.evaluate(() => !!document.activeElement?.closest('[role="alertdialog"]'));

let snapshot;

before(async () => {
  const folder = join(process.env.MEITH_HOME, 'approvals-e2e');
  mkdirSync(folder, { recursive: true });
  dir = realpathSync(folder);
  app = await App.start();
  snapshot = await stateSnapshot();
  ({ browser, page, pageErrors } = await openWindow());
});

after(async () => {
  for (const c of children) c.kill('SIGKILL');
  if (page && snapshot) await tidyUp(page, snapshot).catch((err) => console.error('tidy up:', err));
  await browser?.close();
  await app?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('approval dialog', { concurrency: false }, () => {
  test('names the origin, keeps focus inside; Enter allows once, Escape denies', { timeout: 60_000 }, async () => {
    let done = setDebug(true);
    await dialog().waitFor({ timeout: 15_000 });
    const text = (await dialog().textContent()).replace(/\s+/g, ' ');
    assert.match(text, new RegExp(`from \\S+ in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const labels = (await dialog().locator('.actions button').allTextContents()).map((s) => s.trim());
    assert.deepEqual(labels, ['Deny', 'Always in this folder', 'For 15 minutes', 'Allow once']);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Allow once', 'the default has focus');
    for (let i = 0; i < labels.length + 2; i++) {
      await page.keyboard.press(i % 2 ? 'Shift+Tab' : 'Tab');
      assert.ok(await focusInDialog(), `focus left the dialog after ${i + 1} Tab presses`);
    }
    await page.evaluate(() => document.activeElement?.blur());
    await page.keyboard.press('Enter');
    let r = await done;
    assert.equal(r.code, 0, r.out);
    await dialog().waitFor({ state: 'detached' });

    done = setDebug(false);
    await dialog().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Escape');
    r = await done;
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /PERMISSION_DENIED/);
  });

  test('"Always in this folder" is remembered, listed in Settings → General and revocable', { timeout: 60_000 }, async () => {
    let done = setDebug(true);
    await dialog().waitFor({ timeout: 15_000 });
    await dialog().getByRole('button', { name: 'Always in this folder', exact: true }).click();
    let r = await done;
    assert.equal(r.code, 0, r.out);
    await dialog().waitFor({ state: 'detached' });

    r = await setDebug(false); // no dialog: nobody answers, yet it returns
    assert.equal(r.code, 0, r.out);

    await page.keyboard.press('Control+Comma');
    const rules = page.getByRole('region', { name: 'Approval rules' });
    const revoke = rules.getByRole('button', { name: `Revoke writes-files in ${dir}` });
    await revoke.waitFor();
    await revoke.click();
    await rules.getByText('No rules').waitFor();

    done = setDebug(true);
    await dialog().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Escape');
    r = await done;
    assert.equal(r.code, 1, r.out);
    assert.deepEqual(pageErrors, []);
  });
});
