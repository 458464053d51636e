// End-to-end test of projects in the window with the real backend (the
// `-tags dev` binary, harness.mjs), the window's UI in /usr/bin/chromium
// driven by playwright-core, and xdotool answering the native folder dialog
// on the X display:
//   - the rail's "Open folder" opens a folder holding a tiny node app
//     (package.json with a dev script running a node:http server that prints
//     its port) through project_open: its space is named after the package,
//     the header shows the detection and a Run button labelled "dev";
//   - Run starts the project's dev server (project_run): the header shows
//     the port chip, the Output drawer shows the server's lines, the page
//     answers and Run's auto-open puts a browser tab on the port in the
//     space; Stop stops it (project_stop_dev_server);
//   - Settings → Run: a new command with an env variable (a secret-looking
//     one masked) is saved as the default (project_set_run_config); Run
//     then runs it with that environment.
//
//   bash scripts/e2e.sh      (E2E_FILES=frontend/e2e/projects.e2e.mjs for this file only)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App, callAsWindow, cli, env, openWindow, eventually as poll } from './harness.mjs';

const execFileP = promisify(execFile);
const eventually = (fn, ms = 20_000) => poll(fn, ms);

const NAME = 'e2e-run-app';

// The app: prints where it listens (as dev servers do), with a tag from
// --tag and the GREETING variable, and answers every request with them.
const SERVER = `import http from 'node:http';
const at = process.argv.indexOf('--tag');
const tag = at > 0 ? process.argv[at + 1] : 'dev';
const greeting = process.env.GREETING || '';
const s = http.createServer((req, res) => res.end('hello from ' + tag + (greeting ? ' ' + greeting : '')));
s.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
  console.log('Local: http://127.0.0.1:' + s.address().port + '/');
  console.log('serving ' + tag + (greeting ? ' with ' + greeting : ''));
});
process.on('SIGTERM', () => s.close(() => process.exit(0)));
`;

let app;
let browser;
let page;
let dir;
let pageErrors = [];

before(async () => {
  process.env.SHELL = '/bin/sh';
  // Under MEITH_HOME, so that the path typed into the folder dialog is short and known.
  const folder = join(process.env.MEITH_HOME, 'projects', NAME);
  mkdirSync(folder, { recursive: true });
  dir = realpathSync(folder);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: NAME, private: true, type: 'module', scripts: { dev: 'node server.mjs' } }, null, 2));
  writeFileSync(join(dir, 'server.mjs'), SERVER);
  app = await App.start();
  ({ browser, page, pageErrors } = await openWindow({ timeout: 20_000 }));
});

after(async () => {
  // Leave no server behind, whatever failed.
  const list = await cli('list_dev_servers').catch(() => []);
  for (const s of list) {
    if (s.cwd === dir && (s.status === 'running' || s.status === 'starting')) {
      await execFileP(env.cli, ['call', 'stop_dev_server', '--devServerId', s.id], { timeout: 15_000 }).catch(() => {});
    }
  }
  // The next test file starts from the same user data: the project's space
  // (whose folder goes below) must not stay behind, or the window keeps
  // asking git about a folder that is gone.
  const spaceId = await cli('project_list')
    .then(({ projects }) => projects.find((p) => p.cwd === dir)?.spaceId)
    .catch(() => undefined);
  if (page && spaceId) await callAsWindow(page, 'close_space', { spaceId }).catch((err) => console.error('tidy up:', err));
  await browser?.close();
  await app?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const drawer = () => page.getByRole('region', { name: 'Bottom drawer' });
const runBox = () => page.getByTestId('run');

/** Answers the GTK folder dialog on the X display: type the path, press Enter. */
async function answerDialog(path) {
  const { stdout } = await execFileP('xdotool', ['search', '--sync', '--onlyvisible', '--name', '^Open folder as a space$'], { timeout: 30_000 });
  const win = stdout.trim().split('\n')[0];
  await execFileP('xdotool', ['windowfocus', '--sync', win], { timeout: 10_000 });
  await execFileP('xdotool', ['key', '--clearmodifiers', 'ctrl+l'], { timeout: 10_000 });
  await new Promise((r) => setTimeout(r, 300));
  await execFileP('xdotool', ['type', '--delay', '15', `${path}/`], { timeout: 20_000 });
  await new Promise((r) => setTimeout(r, 300));
  await execFileP('xdotool', ['key', 'Return'], { timeout: 10_000 });
}

/** The project of the folder, from the backend. */
async function theProject() {
  const { projects } = await cli('project_list');
  const p = (projects ?? []).find((x) => x.cwd === dir);
  assert.ok(p, `a project for ${dir} in ${JSON.stringify((projects ?? []).map((x) => x.cwd))}`);
  return p;
}

/** Runs the default command with the header's button; resolves with the port the chip shows. */
async function runAndWaitForPort() {
  await page.getByTestId('run-button').click();
  await page.locator('[data-testid="run"][data-state="running"]').waitFor({ timeout: 30_000 });
  const chip = page.getByTestId('run-port');
  await chip.waitFor({ timeout: 30_000 });
  const port = Number((await chip.textContent()).trim().replace(/^:/, ''));
  assert.ok(port > 0, `the chip shows a port: ${await chip.textContent()}`);
  return port;
}

async function stopAndWait(port) {
  await page.getByTestId('run-stop').click();
  // Back to Run (the state is idle, or errored if the backend counts the signal as a failure).
  await page.getByTestId('run-button').waitFor({ timeout: 30_000 });
  assert.ok(['idle', 'errored'].includes(await runBox().getAttribute('data-state')));
  await page.getByTestId('run-port').waitFor({ state: 'detached' });
  await eventually(async () => assert.rejects(fetch(`http://127.0.0.1:${port}/`)));
}

describe('projects in the window with the real backend', { concurrency: false }, () => {
  let project;

  test('Open folder opens the app as a project: its space, the detection, a Run button named after the dev script', { timeout: 90_000 }, async () => {
    const rail = page.getByRole('navigation', { name: 'Spaces' });
    await rail.getByTestId('open-folder').click();
    await answerDialog(dir);

    project = await eventually(theProject, 30_000);
    assert.equal(project.name, NAME);
    assert.equal(project.kind, 'app');
    assert.ok(project.detection.stacks.includes('node'), JSON.stringify(project.detection));
    const st = await cli('app_get_state');
    assert.equal(st.activeSpaceId, project.spaceId, 'the project space is active');
    const space = st.spaces.find((s) => s.id === project.spaceId);
    assert.equal(space.name, NAME);
    assert.equal(space.projectId, project.id);

    // The rail's avatar and the header say what was detected.
    const avatar = rail.getByRole('button', { name: `Space ${NAME}` });
    await avatar.waitFor();
    assert.ok(project.detection.label, 'detection has a label');
    assert.ok((await avatar.getAttribute('title')).includes(`(${project.detection.label})`), await avatar.getAttribute('title'));
    assert.equal((await page.getByTestId('project-detection').textContent()).trim(), project.detection.label);

    // The Run button names the default command: the package's dev script.
    await runBox().waitFor();
    assert.equal(await runBox().getAttribute('data-project-id'), project.id);
    assert.equal(await runBox().getAttribute('data-state'), 'idle');
    assert.match((await page.getByTestId('run-button').textContent()).trim(), /\bdev$/);

    // Opening the same folder again reuses the project and its space.
    const count = (await cli('list_spaces')).spaces.length;
    await rail.getByTestId('open-folder').click();
    await answerDialog(dir);
    await eventually(async () => assert.equal((await cli('list_spaces')).activeSpaceId, project.spaceId));
    assert.equal((await cli('list_spaces')).spaces.length, count);
    assert.equal((await cli('project_list')).projects.filter((p) => p.cwd === dir).length, 1);
  });

  test('Run starts the dev server: the port chip, the Output lines, the page opened in the space; Stop stops it', { timeout: 90_000 }, async () => {
    const port = await runAndWaitForPort();
    const res = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(await res.text(), 'hello from dev');

    // The server record belongs to the project and its space.
    const srv = (await cli('list_dev_servers')).find((s) => s.port === port);
    assert.ok(srv, 'the server is listed');
    assert.equal(srv.projectId, project.id);
    assert.equal(srv.spaceId, project.spaceId);
    assert.equal(srv.cwd, dir);

    // showOutputOnRun (on by default): the drawer shows the server's lines.
    const output = drawer().getByRole('tabpanel', { name: 'Output' });
    await output.waitFor();
    const log = output.getByRole('log');
    await log.getByText(`Local: http://127.0.0.1:${port}/`).waitFor();
    await log.getByText('serving dev').waitFor();

    // Run's auto-open: a browser tab of the project's space on the port, and no offer banner for it.
    await eventually(async () => {
      const st = await cli('app_get_state');
      const tabs = st.browserTabs.filter((t) => t.spaceId === project.spaceId && new URL(t.url).port === String(port));
      assert.equal(tabs.length, 1, JSON.stringify(st.browserTabs.map((t) => [t.spaceId, t.url])));
    });
    assert.equal(await page.getByRole('region', { name: 'Dev server ports' }).getByText(`listens on :${port}`).count(), 0);

    // The chip focuses that tab again instead of opening a second one.
    await page.getByTestId('run-port').click();
    await new Promise((r) => setTimeout(r, 500));
    const st = await cli('app_get_state');
    assert.equal(st.browserTabs.filter((t) => t.spaceId === project.spaceId && new URL(t.url).port === String(port)).length, 1);

    await stopAndWait(port);
    await eventually(async () => {
      const s = (await cli('list_dev_servers')).find((x) => x.id === srv.id);
      assert.ok(['stopped', 'exited'].includes(s.status), JSON.stringify(s));
    });
  });

  test('Settings → Run: a new default command with env is saved and Run runs it', { timeout: 120_000 }, async () => {
    await page.keyboard.press('Control+Comma');
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Run', exact: true }).click();
    const form = page.getByTestId('run-settings');
    await form.waitFor();
    // The detected command is listed.
    await form.getByTestId('run-command-row').first().waitFor();
    assert.equal(await form.getByTestId('run-command-row').count(), 1);

    await form.getByTestId('run-command-add').click();
    const row = form.getByTestId('run-command-row').nth(1);
    await row.getByTestId('run-command-label').fill('Serve tagged');
    await row.getByTestId('run-command-command').fill('node server.mjs --tag custom');
    await row.getByTestId('run-command-default').check();
    // An empty third command is dropped on save.
    await form.getByTestId('run-command-add').click();

    await form.getByTestId('run-env-add').click();
    await form.getByTestId('run-env-row').nth(0).getByTestId('run-env-key').fill('GREETING');
    await form.getByTestId('run-env-row').nth(0).getByTestId('run-env-value').fill('howdy');
    await form.getByTestId('run-env-add').click();
    const secret = form.getByTestId('run-env-row').nth(1);
    await secret.getByTestId('run-env-key').fill('API_TOKEN');
    await secret.getByTestId('run-env-value').fill('tok-e2e');
    assert.equal(await secret.getByTestId('run-env-value').getAttribute('type'), 'password', 'a secret-looking value is masked');
    await secret.getByTestId('run-env-show').click();
    assert.equal(await secret.getByTestId('run-env-value').getAttribute('type'), 'text');

    await form.getByTestId('run-settings-save').click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    const saved = await eventually(async () => {
      const p = await theProject();
      assert.ok(p.runConfig, 'a saved run configuration');
      return p.runConfig;
    });
    assert.equal(saved.commands.length, 2, JSON.stringify(saved.commands));
    const custom = saved.commands.find((c) => c.command === 'node server.mjs --tag custom');
    assert.ok(custom, JSON.stringify(saved.commands));
    assert.equal(custom.label, 'Serve tagged');
    assert.equal(custom.isDevServer, true);
    assert.equal(saved.defaultCommandId, custom.id);
    assert.deepEqual(saved.env, { GREETING: 'howdy', API_TOKEN: 'tok-e2e' });
    assert.equal(await form.getByTestId('run-settings-error').count(), 0);

    // Back in the workspace, Run names and runs the new default, with the env.
    await page.keyboard.press('Escape');
    await eventually(async () => assert.match((await page.getByTestId('run-button').textContent()).trim(), /Serve tagged$/));
    // The menu lists both commands, the default first.
    await page.getByTestId('run-menu-toggle').click();
    const items = page.getByTestId('run-menu').getByTestId('run-menu-item');
    assert.deepEqual(await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-command-id'))), [custom.id, saved.commands.find((c) => c !== custom).id]);
    await page.keyboard.press('Escape');

    const port = await runAndWaitForPort();
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).text(), 'hello from custom howdy');
    const log = drawer().getByRole('tabpanel', { name: 'Output' }).getByRole('log');
    await log.getByText('serving custom with howdy').waitFor();
    await stopAndWait(port);
  });

  test('no unexpected page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
