// End-to-end test of the editor tab with the real backend (the `-tags dev`
// binary, harness.mjs): the file tools, the watcher's files_changed hints,
// the window's UI in /usr/bin/chromium driven by playwright-core, and a real
// ACP agent (the scripted one of backend/agent/testdata) that edits a file
// through meith's MCP tools while it is open.
//
// A project folder (a git repository) is opened as a space; the user opens
// a file with quick open, edits and saves it (the change is on disk); a
// change made on disk reloads the clean buffer; a change on disk under
// unsaved edits shows the conflict bar, resolved both ways (compare, take
// theirs; keep mine then save); a workspace search jumps to the match; the
// agent writes the open file through workspace_write_file and the buffer
// shows it; the tool card's "Open" shows that file in the editor.
//
//   bash scripts/e2e.sh      (E2E_FILES=frontend/e2e/editor.e2e.mjs for this file only)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, callAsWindow, cli, openWindow, eventually as poll } from './harness.mjs';

const eventually = (fn, ms = 15_000) => poll(fn, ms);

let app;
let browser;
let page;
let dir;
let spaceId;
let pageErrors = [];

const APP_TS = ['export function greet(name: string): string {', "  return 'hello ' + name;", '}', ''].join('\n');
const MATH_GO = ['package util', '', '// Answer is the answer.', 'func Answer() int { return 42 }', ''].join('\n');

/** Calls a tool as the window does (the renderer caller) and returns its result. */
const windowCall = (tool, args) => callAsWindow(page, tool, args);

const editorTab = () => page.getByTestId('editor-tab');
const content = () => editorTab().locator('.cm-content');
const fileTab = (path) => editorTab().getByRole('tab').and(page.locator(`[data-path="${path}"]`));
const onDisk = (rel) => readFileSync(join(dir, rel), 'utf8');

before(async () => {
  const agentBin = process.env.MEITH_SCRIPTAGENT;
  assert.ok(agentBin, 'MEITH_SCRIPTAGENT is not set (run scripts/e2e.sh)');
  const agentDir = join(process.env.MEITH_USER_DATA, 'agent');
  mkdirSync(agentDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(agentDir, 'config.json'), JSON.stringify({ preset: 'custom', command: agentBin, args: [], model: '', reasoning: '', autoAccept: false }), { mode: 0o600 });

  dir = realpathSync(mkdtempSync(join(tmpdir(), 'meith-e2e-editor-')));
  mkdirSync(join(dir, 'src', 'util'), { recursive: true });
  writeFileSync(join(dir, 'src', 'app.ts'), APP_TS);
  writeFileSync(join(dir, 'src', 'util', 'math.go'), MATH_GO);
  writeFileSync(join(dir, 'README.md'), '# Project\n\nThe answer lives in src/util.\n');
  const git = (...args) => execFileSync('git', ['-C', dir, '-c', 'user.name=e2e', '-c', 'user.email=e2e@example.com', ...args]);
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'init');

  app = await App.start();
  ({ browser, page, pageErrors } = await openWindow({ timeout: 20_000 }));
  page.on('dialog', (d) => d.accept());
  const r = await windowCall('create_space', { name: 'editor-e2e', cwd: dir });
  assert.equal(r.ok, true, JSON.stringify(r));
  spaceId = r.content.id;
});

after(async () => {
  await browser?.close();
  await app?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the editor tab with the real backend', { concurrency: false }, () => {
  test('the explorer lists the folder; quick open opens a file; edit and save reach the disk', { timeout: 60_000 }, async () => {
    await page.getByRole('button', { name: 'Open editor tab' }).first().click();
    const tree = editorTab().getByRole('tree', { name: 'Files of the folder' });
    await tree.getByRole('treeitem', { name: /src/ }).waitFor();
    await tree.getByRole('treeitem', { name: /README\.md/ }).waitFor();

    // Ctrl+P, "app", Enter.
    await tree.click();
    await page.keyboard.press('Control+p');
    const palette = page.getByTestId('quick-open');
    await palette.getByRole('textbox', { name: 'Go to file' }).fill('app');
    await palette.getByRole('option', { name: /app\.ts/ }).first().waitFor();
    await page.keyboard.press('Enter');
    await palette.waitFor({ state: 'detached' });
    await eventually(async () => assert.match(await content().textContent(), /return 'hello ' \+ name;/));
    await fileTab('src/app.ts').waitFor();

    // Type at the end of line 2, see the dirty dot, save.
    await content().getByText("return 'hello ' + name;").click();
    await page.keyboard.press('End');
    await page.keyboard.type(' // edited');
    await eventually(async () => assert.equal(await fileTab('src/app.ts').getAttribute('data-dirty'), 'true'));
    await page.keyboard.press('Control+s');
    await eventually(() => assert.match(onDisk('src/app.ts'), /return 'hello ' \+ name; \/\/ edited\n/));
    await eventually(async () => assert.equal(await fileTab('src/app.ts').getAttribute('data-dirty'), 'false'));
    // The tab remembers its files in state.json.
    await eventually(async () => {
      const tab = (await cli('app_get_state')).workspaceTabs.find((t) => t.spaceId === spaceId && t.kind === 'editor');
      assert.deepEqual(tab.openFilePaths, ['src/app.ts']);
      assert.equal(tab.activeFilePath, 'src/app.ts');
    });
  });

  test('a change on disk reloads the clean buffer at once', { timeout: 30_000 }, async () => {
    writeFileSync(join(dir, 'src', 'app.ts'), APP_TS.replace('hello', 'hi there'));
    await eventually(async () => assert.match(await content().textContent(), /return 'hi there ' \+ name;/));
    assert.equal(await fileTab('src/app.ts').getAttribute('data-dirty'), 'false');
    assert.equal(await editorTab().getByTestId('conflict-bar').count(), 0);
  });

  test('a change on disk under unsaved edits shows the conflict bar; take theirs, then keep mine', { timeout: 60_000 }, async () => {
    const bar = editorTab().getByTestId('conflict-bar');
    // Unsaved edit, then another program writes the file.
    await content().getByText('export function greet').click();
    await page.keyboard.press('Home');
    await page.keyboard.type('// mine\n');
    await eventually(async () => assert.equal(await fileTab('src/app.ts').getAttribute('data-dirty'), 'true'));
    writeFileSync(join(dir, 'src', 'app.ts'), '// theirs\n' + APP_TS);
    await bar.waitFor();
    assert.match(await bar.textContent(), /This file changed on disk/);
    assert.match(await content().textContent(), /\/\/ mine/); // the buffer is kept
    // Compare shows both sides.
    await bar.getByRole('button', { name: 'Compare' }).click();
    const cmp = editorTab().getByTestId('compare-view');
    await cmp.getByText('// mine').first().waitFor();
    await cmp.getByText('// theirs').first().waitFor();
    // Take theirs: the disk copy, clean.
    await bar.getByRole('button', { name: 'Take theirs' }).click();
    await bar.waitFor({ state: 'detached' });
    await eventually(async () => assert.match(await content().textContent(), /^\/\/ theirs/));
    assert.doesNotMatch(await content().textContent(), /\/\/ mine/);
    assert.equal(await fileTab('src/app.ts').getAttribute('data-dirty'), 'false');

    // Again, and keep mine: the save overwrites their change.
    await content().getByText('// theirs').click();
    await page.keyboard.press('End');
    await page.keyboard.type(' and mine');
    writeFileSync(join(dir, 'src', 'app.ts'), '// a third version\n');
    await bar.waitFor();
    // Ctrl+S does not overwrite while the bar asks.
    await page.keyboard.press('Control+s');
    await page.waitForTimeout(300);
    assert.equal(onDisk('src/app.ts'), '// a third version\n');
    await bar.getByRole('button', { name: 'Keep mine' }).click();
    await bar.waitFor({ state: 'detached' });
    await content().click();
    await page.keyboard.press('Control+s');
    await eventually(() => assert.match(onDisk('src/app.ts'), /^\/\/ theirs and mine\n/));
    await eventually(async () => assert.equal(await fileTab('src/app.ts').getAttribute('data-dirty'), 'false'));
  });

  test('workspace search finds the match and a click jumps to it', { timeout: 30_000 }, async () => {
    await content().click();
    await page.keyboard.press('Control+Shift+F');
    const panel = page.getByTestId('search-panel');
    await panel.getByRole('textbox', { name: 'Search text' }).fill('return 42');
    await page.keyboard.press('Enter');
    const match = panel.getByTestId('search-match').first();
    await match.waitFor();
    assert.equal(await match.getAttribute('data-path'), 'src/util/math.go');
    assert.equal(await match.getAttribute('data-line'), '4');
    await match.click();
    await fileTab('src/util/math.go').waitFor();
    // The cursor is on the match, the match selected ("return 42": 9 characters from column 21).
    await eventually(async () => assert.match(await editorTab().getByTestId('editor-status').textContent(), /Ln 4, Col 30 \(9 selected\)/));
    if (process.env.MEITH_E2E_SHOTS) await page.screenshot({ path: join(process.env.MEITH_E2E_SHOTS, 'editor.png') });
  });

  test('an agent edits the open file through MCP: the buffer shows it', { timeout: 90_000 }, async () => {
    await fileTab('src/app.ts').click();
    await eventually(async () => assert.match(await content().textContent(), /theirs and mine/));
    // The agent tab opens beside the editor.
    await page.locator('body').click({ position: { x: 640, y: 400 } });
    await page.keyboard.press('Control+Backslash');
    const view = page.getByTestId('agent-view');
    await view.waitFor();
    const args = JSON.stringify({ cwd: dir, path: 'src/app.ts', content: '// written by the agent\n' + APP_TS });
    await view.getByRole('textbox', { name: 'Message the agent' }).fill(`call workspace_write_file ${args}\nsay Done.`);
    await view.getByRole('button', { name: 'Send' }).click();
    const card = view.getByRole('group', { name: 'Permission required' });
    await card.waitFor();
    await card.getByRole('button', { name: 'Allow' }).click();
    await eventually(async () => assert.match(await content().textContent(), /^\/\/ written by the agent/), 30_000);
    assert.equal(onDisk('src/app.ts'), '// written by the agent\n' + APP_TS);
    assert.equal(await fileTab('src/app.ts').getAttribute('data-dirty'), 'false');
    await view.getByRole('button', { name: 'Send' }).waitFor(); // the run is over

    // The tool card's "Open" shows the file the agent wrote in the editor, at the first line it changed.
    await fileTab('src/util/math.go').click();
    await eventually(async () => assert.equal(await fileTab('src/util/math.go').getAttribute('aria-selected'), 'true'));
    const toolCard = view.getByTestId('agent-tool-call').and(view.locator('[data-tool="workspace_write_file"]'));
    await toolCard.getByTestId('agent-tool-open').click();
    await eventually(async () => assert.equal(await fileTab('src/app.ts').getAttribute('aria-selected'), 'true'));
    await eventually(async () => assert.match(await editorTab().getByTestId('editor-status').textContent(), /Ln 1, Col 1\b/));
  });

  test('the space goes away again', { timeout: 30_000 }, async () => {
    const r = await windowCall('close_space', { spaceId });
    assert.equal(r.ok, true, JSON.stringify(r));
    await eventually(async () => assert.equal((await cli('app_get_state')).spaces.some((s) => s.id === spaceId), false));
  });

  test('no unexpected page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
