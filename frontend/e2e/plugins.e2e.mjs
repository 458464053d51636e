// End-to-end test of plugins in the window with the real backend (the
// `-tags dev` binary, harness.mjs, with its own Chromium for plugin pages),
// the window's UI in /usr/bin/chromium driven by playwright-core, and
// xdotool answering the native folder dialog on the X display:
//   - a plugin made from the plugin-basic template (project_create_plugin)
//     is installed from Settings → Plugins with "Install from folder…";
//   - its "tools" API scope is checked and approved, the plugin enabled and
//     opened: a plugin tab named after it shows its page in the live view;
//   - a click ON THE CANVAS on the page's "Call app_ping" button makes the
//     page call app_ping through window.meithPlugin: the page shows the
//     tool's result, and the audit records the call as caller plugin with
//     the plugin's id;
//   - disabling the plugin in Settings takes the bridge from the open tab.
//
//   bash scripts/e2e.sh      (E2E_FILES=frontend/e2e/plugins.e2e.mjs for this file only)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { App, callAsWindow, cli, openWindow, eventually as poll } from './harness.mjs';

const execFileP = promisify(execFile);
const eventually = (fn, ms = 20_000) => poll(fn, ms);

const NAME = 'E2E board';

let app;
let browser;
let page;
let dir;
let pluginId;
let pageErrors = [];

before(async () => {
  app = await App.start();
  ({ browser, page, pageErrors } = await openWindow({ timeout: 20_000 }));
  // The template plugin, made where projects are made (not opened; as the
  // window, which needs no approval).
  const made = await callAsWindow(page, 'project_create_plugin', { name: NAME, open: false });
  dir = made.content?.cwd;
  assert.ok(dir, JSON.stringify(made));
});

after(async () => {
  if (page && pluginId) await callAsWindow(page, 'uninstall_plugin', { pluginId }).catch((err) => console.error('tidy up:', err));
  await browser?.close();
  await app?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Answers the GTK folder dialog titled title on the X display: type the path, press Enter. */
async function answerDialog(title, path) {
  const { stdout } = await execFileP('xdotool', ['search', '--sync', '--onlyvisible', '--name', `^${title}$`], { timeout: 30_000 });
  const win = stdout.trim().split('\n')[0];
  await execFileP('xdotool', ['windowfocus', '--sync', win], { timeout: 10_000 });
  await execFileP('xdotool', ['key', '--clearmodifiers', 'ctrl+l'], { timeout: 10_000 });
  await new Promise((r) => setTimeout(r, 300));
  await execFileP('xdotool', ['type', '--delay', '15', `${path}/`], { timeout: 20_000 });
  await new Promise((r) => setTimeout(r, 300));
  await execFileP('xdotool', ['key', 'Return'], { timeout: 10_000 });
}

/** The page of the plugin tab, read as the window (the only caller that may). */
async function inPage(tabId, expression) {
  const r = await callAsWindow(page, 'cdp_command', { tabId, method: 'Runtime.evaluate', params: { expression, returnByValue: true } });
  assert.equal(r.ok, true, JSON.stringify(r));
  return r.content.result.result.value;
}

describe('plugins in the window', { concurrency: false }, () => {
  test('install the template plugin from Settings, approve, enable, open, click its button: a tool result', { timeout: 120_000 }, async () => {
    // Settings → Plugins.
    // (No click into the page first: the middle of an empty space is its
    // "Open folder…" button, whose dialog would take the path typed below.)
    await page.keyboard.press('Control+Comma');
    const nav = page.getByRole('navigation', { name: 'Settings sections' });
    await nav.getByRole('button', { name: 'Plugins' }).or(nav.getByRole('link', { name: 'Plugins' })).first().click();
    await page.getByRole('heading', { name: 'Install a plugin' }).waitFor();

    // Install from folder… with the native dialog.
    await page.getByRole('button', { name: 'Install from folder…' }).click();
    await answerDialog('Install plugin from folder', dir);
    const list = page.getByRole('list', { name: 'Installed plugins' });
    const row = list.locator('li[data-plugin-id]').filter({ hasText: NAME });
    await row.waitFor({ timeout: 30_000 }).catch(async (err) => {
      await page.screenshot({ path: 'build/bin/e2e-plugins-failure.png' }).catch(() => {});
      const text = await page.locator('body').innerText().catch(() => '');
      const recent = await cli('audit_query', '--limit', '40', '--tools', '["project_create_plugin","project_open","install_plugin","create_space","open_workspace_tab","list_plugins"]').catch(() => ({ entries: [] }));
      console.error('recent calls:', recent.entries.map((e) => `${e.caller} ${e.toolName} ${e.resultSummary ?? ''}`.slice(0, 160)).join('\n'));
      throw new Error(`${err.message}\nthe window shows: ${text.slice(0, 1500)}`);
    });
    pluginId = await row.getAttribute('data-plugin-id');
    assert.ok(pluginId, 'the row names the plugin');

    // Approve the "tools" API scope it asks for, then enable it.
    const grants = row.getByRole('group', { name: `What ${NAME} asks for` });
    const tools = grants.locator('label.grant').filter({ hasText: 'tools' }).locator('input[type="checkbox"]');
    await tools.check();
    await row.getByRole('button', { name: 'Approve' }).click();
    await eventually(async () => {
      const { plugins } = await cli('list_plugins');
      const p = plugins.find((x) => x.id === pluginId);
      assert.deepEqual(p?.approvedGrants?.apis, ['tools']);
    });
    await row.getByRole('button', { name: 'Enable' }).click();
    await row.getByRole('button', { name: 'Disable' }).waitFor();

    // Open: a plugin tab named after the plugin, its page in the live view
    // (the drawer an earlier file left open would hide the page's button).
    await row.getByRole('button', { name: 'Open' }).click();
    if ((await page.getByRole('region', { name: 'Bottom drawer' }).count()) > 0) {
      await page.getByRole('button', { name: 'Toggle drawer' }).click();
      await page.getByRole('region', { name: 'Bottom drawer' }).waitFor({ state: 'detached' });
    }
    const strip = page.getByRole('tablist', { name: /pane tabs$/ }).first();
    await page.getByRole('tab', { name: new RegExp(NAME) }).first().waitFor({ timeout: 30_000 });
    void strip;
    const st = await eventually(async () => {
      const s = await cli('app_get_state');
      const tab = s.browserTabs.find((t) => t.pluginId === pluginId);
      assert.ok(tab, 'a plugin tab in the state');
      assert.equal(tab.mode, 'plugin');
      return tab;
    });
    const tabId = st.id;
    // The bridge is there and the page enabled its button.
    await eventually(async () => assert.equal(await inPage(tabId, "document.getElementById('ping').disabled"), false));
    const canvas = page.locator(`canvas[data-tab-id="${tabId}"]`);
    await canvas.waitFor({ timeout: 30_000 });
    // The canvas shows this tab's page laid out for the pane (1:1 in CSS
    // pixels), so a point on the canvas is the same point in the page.
    await eventually(async () => {
      const v = await page.evaluate((id) => {
        const r = document.querySelector(`canvas[data-tab-id="${id}"]`).getBoundingClientRect();
        return { w: Math.round(r.width), h: Math.round(r.height), s: window.__meithBrowserView };
      }, tabId);
      assert.equal(v.s?.tabId, tabId);
      assert.ok(v.s.framesDrawn > 0, 'the live view drew the page');
      assert.deepEqual([v.s.deviceWidth, v.s.deviceHeight], [v.w, v.h]);
    });

    // Click the button ON THE CANVAS.
    const state = await callAsWindow(page, 'get_browser_state', { tabId });
    assert.equal(state.ok, true, JSON.stringify(state));
    const button = state.content.elements.find((e) => e.tag === 'button' && /app_ping/.test(e.text ?? e.label ?? ''));
    assert.ok(button?.bounds, `the button in ${JSON.stringify(state.content.elements).slice(0, 400)}`);
    const box = await canvas.boundingBox();
    assert.ok(button.bounds.y + button.bounds.height <= box.height, `the button ${JSON.stringify(button.bounds)} shows on the canvas ${JSON.stringify(box)}`);
    await page.mouse.click(box.x + button.bounds.x + button.bounds.width / 2, box.y + button.bounds.y + button.bounds.height / 2);

    // The page shows the tool's result, and the audit says who called.
    await eventually(async () => {
      const text = await inPage(tabId, "document.getElementById('result').textContent");
      assert.match(text, /"ok": true/, text);
      assert.match(text, /pong|caller/i, text);
    }).catch(async (err) => {
      await page.screenshot({ path: 'build/bin/e2e-plugins-click.png' }).catch(() => {});
      const at = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.outerHTML.slice(0, 200), [box.x + button.bounds.x + button.bounds.width / 2, box.y + button.bounds.y + button.bounds.height / 2]);
      throw new Error(`${err.message}\nat the click point: ${at}\nbutton ${JSON.stringify(button.bounds)} canvas ${JSON.stringify(box)}`);
    });
    const q = await cli('audit_query', '--tools', '["app_ping"]', '--callers', '["plugin"]', '--limit', '5');
    assert.ok(
      q.entries.some((e) => e.caller === 'plugin' && e.sessionId === `plugin:${pluginId}`),
      `an app_ping audited as the plugin: ${JSON.stringify(q.entries).slice(0, 400)}`,
    );

    // Disable in Settings: the open tab loses its bridge at once.
    await page.keyboard.press('Control+Comma');
    await nav.getByRole('button', { name: 'Plugins' }).or(nav.getByRole('link', { name: 'Plugins' })).first().click();
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.getByRole('button', { name: 'Enable' }).waitFor();
    await eventually(async () => {
      const still = await inPage(tabId, 'typeof window.meithPlugin?.tools?.call').catch(() => 'gone');
      assert.notEqual(still, 'function', 'the bridge is gone');
    });
  });

  test('no unexpected page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
