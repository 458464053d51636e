// End-to-end test of `meith .` on the desktop path: no app is running; the
// CLI (the headless build) starts the desktop app itself (MEITH_APP_BIN: the
// `-tags dev` binary under Xvfb, through a small wrapper that gives it the
// e2e page's address), waits for its socket with "Starting meith…", and asks
// it to open the folder (project_open). The desktop app asks the person in
// the window, as for every privileged CLI call; "Allow once" opens the folder
// as its project's space. Then `meith` with no arguments finds the running
// app and focuses its window instead of starting a second one.
//
//   bash scripts/e2e.sh      (E2E_FILES=frontend/e2e/launch.e2e.mjs for this file only)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { callAsWindow, cli, env, openWindow, eventually } from './harness.mjs';

const execFileP = promisify(execFile);
const NAME = 'e2e-launched-app';
const repo = new globalThis.URL('../..', import.meta.url).pathname;

let dir;
let wrapper;
let browser;
let page;
let pageErrors = [];

/** Runs the CLI (headless build) in dir; resolves with its exit code and output. */
function meith(args, extraEnv = {}) {
  const child = spawn(env.cli, args, { cwd: dir, env: { ...process.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const done = new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
  return { child, done };
}

/** The pid of the running app, from the instance records. */
async function appPid() {
  const { stdout } = await execFileP(env.cli, ['app', 'list'], { timeout: 5_000 });
  const line = stdout.split('\n').find((l) => /^\d+\s/.test(l.trim()));
  return line ? Number(line.trim().split(/\s+/)[0]) : 0;
}

before(() => {
  const folder = join(process.env.MEITH_HOME, 'projects', NAME);
  mkdirSync(folder, { recursive: true });
  dir = realpathSync(folder);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: NAME, private: true, scripts: { dev: 'node server.mjs' } }, null, 2));
  // The desktop app as `meith .` starts it: the dev binary, serving the UI
  // where the e2e browser looks for it (the harness's address and log).
  wrapper = join(process.env.MEITH_HOME, 'meith-app');
  writeFileSync(
    wrapper,
    `#!/bin/sh\ncd '${repo}'\necho $$ > '${env.pidFile}'\nexec env assetdir=frontend/dist devserver=127.0.0.1:${env.port} '${env.devBin}' >> '${env.logFile}' 2>&1\n`,
  );
  chmodSync(wrapper, 0o755);
});

after(async () => {
  // The next test file starts from the same user data: the project's space
  // (whose folder goes below) must not stay the active one.
  const spaceId = await cli('project_list')
    .then(({ projects }) => projects.find((p) => p.cwd === dir)?.spaceId)
    .catch(() => undefined);
  if (page && spaceId) await callAsWindow(page, 'close_space', { spaceId }).catch((err) => console.error('tidy up:', err));
  await browser?.close();
  const pid = await appPid().catch(() => 0);
  if (pid) {
    process.kill(pid, 'SIGTERM');
    await eventually(async () => assert.equal(await appPid().catch(() => 0), 0), 15_000).catch(() => process.kill(pid, 'SIGKILL'));
  }
  rmSync(env.pidFile, { force: true });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('meith . on the desktop', { concurrency: false }, () => {
  test('with no app running, `meith .` starts the desktop app and, once allowed in the window, opens the folder as its space', { timeout: 90_000 }, async () => {
    assert.equal(await appPid(), 0, 'no app runs before the test');
    const run = meith(['.'], { MEITH_APP_BIN: wrapper });

    // The app comes up; the window asks about the CLI's project_open.
    await eventually(async () => assert.ok((await fetch(`http://127.0.0.1:${env.port}/`)).ok), 30_000);
    ({ browser, page, pageErrors } = await openWindow({ timeout: 20_000 }));
    const dialog = page.getByRole('alertdialog', { name: 'A program wants to use a privileged tool' });
    await dialog.waitFor({ timeout: 30_000 });
    await dialog.getByText('project_open').first().waitFor();
    await dialog.getByRole('button', { name: 'Allow once', exact: true }).click();

    const r = await run.done;
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.err, /^Starting meith…$/m);
    assert.match(r.out, new RegExp(`^Opened ${NAME} \\(.+\\) in space ${NAME}$`, 'm'));

    // The folder is a project with its own space, active in the window.
    const { projects } = await cli('project_list');
    const project = projects.find((p) => p.cwd === dir);
    assert.ok(project, JSON.stringify(projects));
    assert.equal((await cli('list_spaces')).activeSpaceId, project.spaceId);
    await page.getByRole('navigation', { name: 'Spaces' }).getByRole('button', { name: `Space ${NAME}` }).waitFor();
    await page.getByTestId('project-detection').waitFor();
  });

  test('`meith` with the app running focuses its window and starts nothing', { timeout: 30_000 }, async () => {
    const pid = await appPid();
    const r = await meith([], { MEITH_APP_BIN: '/bin/false' }).done;
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /^meith is already running; its window is focused$/m);
    assert.equal(await appPid(), pid, 'the same app runs');
  });

  test('no unexpected page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
