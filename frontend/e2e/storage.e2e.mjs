// End-to-end test of issue 18 against the real Go backend: a CLI call the
// person refuses in the approval dialog shows in the drawer's Audit panel as
// refused (it stands out, and its details say who decided); Settings →
// Storage clears the artifacts (a bug report written by the CLI) and the
// size it shows drops.
//
//   E2E_FILES=frontend/e2e/storage.e2e.mjs bash scripts/e2e.sh
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { App, cli, openWindow, eventually, runCLI, stateSnapshot, tidyUp } from './harness.mjs';

let app;
let browser;
let page;
let pageErrors = [];
let snapshot;
const children = [];

const drawer = () => page.getByRole('region', { name: 'Bottom drawer' });

before(async () => {
  app = await App.start();
  snapshot = await stateSnapshot();
  ({ browser, page, pageErrors } = await openWindow());
});

after(async () => {
  for (const c of children) c.kill('SIGKILL');
  if (page && snapshot) await tidyUp(page, snapshot).catch((err) => console.error('tidy up:', err));
  await browser?.close();
  await app?.stop();
});

describe('storage and the audit trail in the window', { concurrency: false }, () => {
  test('a CLI call refused in the dialog shows in the Audit panel as refused, with who decided', { timeout: 60_000 }, async () => {
    // The drawer's Audit panel, open before the call: the entry arrives live.
    if ((await drawer().count()) === 0) await page.getByRole('button', { name: 'Toggle drawer' }).click();
    await drawer().getByRole('tab', { name: 'Audit' }).click();
    const panel = drawer().getByRole('tabpanel', { name: 'Audit' });
    const list = panel.getByRole('listbox', { name: 'Audit entries' });
    await list.waitFor();

    const run = runCLI(['call', 'app_set_debug_mode', '--enabled', 'true'], { children });
    const dialog = page.getByRole('alertdialog', { name: 'A program wants to use a privileged tool' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    const r = await run;
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /PERMISSION_DENIED/);

    // The entry: refused (words and an icon, not colour alone), newest first.
    const row = list.getByRole('option').filter({ hasText: 'app_set_debug_mode' }).first();
    await eventually(async () => assert.match(await row.textContent(), /refused/), 15_000);
    // A person points at the list to pick the row: while the pointer is
    // over it, newer entries wait in the "N new" pill and the rows hold
    // still (the window's own calls are audited all the time).
    const box = await list.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + 4);
    await row.click();
    const details = panel.getByRole('region', { name: 'Audit entry details' });
    await details.waitFor();
    const text = (await details.textContent()).replace(/\s+/g, ' ');
    assert.match(text, /refused/);
    assert.match(text, /window/, 'who decided');
    assert.match(text, /req_/, 'the request id');

    // The audit file says the same (audit_query through the CLI).
    const q = await cli('audit_query', '--tools', '["app_set_debug_mode"]', '--limit', '5');
    const e = q.entries.find((x) => x.caller === 'cli');
    assert.equal(e?.decision, 'refused', JSON.stringify(q.entries));
    assert.equal(e.decidedBy, 'window');
  });

  test('Settings → Storage clears the artifacts and the size drops', { timeout: 60_000 }, async () => {
    // An artifact to clear: a bug report the CLI exports (read-only, no prompt).
    const report = await cli('app_export_bug_report', '--logsLimit', '20');
    assert.ok(report.path && existsSync(report.path), JSON.stringify(report).slice(0, 200));
    const artifacts = join(process.env.MEITH_USER_DATA, 'artifacts');

    await page.locator('body').click({ position: { x: 640, y: 300 } });
    await page.keyboard.press('Control+Comma');
    const nav = page.getByRole('navigation', { name: 'Settings sections' });
    await nav.getByRole('button', { name: 'Storage', exact: true }).click();
    const storage = page.getByRole('region', { name: 'Storage' });
    const size = storage.getByTestId('size-artifacts');
    await size.waitFor();
    await storage.getByRole('button', { name: 'Refresh' }).click();
    await eventually(async () => assert.doesNotMatch((await size.textContent()).trim(), /^0 B$/), 10_000);
    const before = (await size.textContent()).trim();

    await storage.getByRole('button', { name: 'Clear artifacts…' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Clear artifacts', exact: true }).click();
    await page.getByText(/^Freed .+ \(\d+ files?\)/).first().waitFor();
    await eventually(async () => assert.equal((await size.textContent()).trim(), '0 B', `was ${before}`), 10_000);
    assert.deepEqual(existsSync(artifacts) ? readdirSync(artifacts) : [], []);

    await page.keyboard.press('Escape');
  });

  test('no unexpected page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
