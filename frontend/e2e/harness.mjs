// The app under test for the end-to-end tests: starts the `-tags dev` binary
// (which serves the frontend with live bindings to any browser) with the
// temporary MEITH_HOME/MEITH_USER_DATA that scripts/e2e.sh prepared, waits
// until the page answers and the runtime registered its instance, and stops
// it again — so a test can restart the backend and check what survived.
import { execFile, spawn } from 'node:child_process';
import { writeFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';

const execFileP = promisify(execFile);

/** Settings of the run, from scripts/e2e.sh. */
export const env = {
  devBin: process.env.MEITH_DEV_BIN,
  cli: process.env.MEITH_BIN,
  port: process.env.MEITH_E2E_PORT,
  pidFile: process.env.MEITH_E2E_PIDFILE,
  logFile: process.env.MEITH_E2E_LOG,
};
for (const [k, v] of Object.entries(env)) {
  if (!v) throw new Error(`e2e: ${k} is not set (run scripts/e2e.sh)`);
}
export const URL = `http://127.0.0.1:${env.port}/`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs a read-only CLI call with --json and returns its content. */
export async function cli(tool, ...args) {
  const { stdout } = await execFileP(env.cli, ['--json', 'call', tool, ...args], { timeout: 15_000 });
  const r = JSON.parse(stdout);
  if (r.ok !== true) throw new Error(`${tool}: ${stdout}`);
  return r.content;
}

// A known error of the Wails dev runtime in a plain browser.
// And in dev mode the page's /wails/ipc.js websocket may deliver an event
// before /wails/runtime.js has defined window.wails (a loaded machine
// fetches the second script late); the production window has no websocket.
const HARMLESS = [/Cannot read properties of null \(reading 'nodes'\)/, /Cannot read properties of undefined \(reading 'EventsNotify'\)/];

/**
 * Opens the window's UI in /usr/bin/chromium (headless, the flags of the
 * machine's brief) at 1280×820 and waits for the spaces rail. pageErrors
 * collects the page's uncaught errors, the known harmless one left out.
 */
const trails = new WeakMap();

export async function openWindow({ timeout = 15_000 } = {}) {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
  page.setDefaultTimeout(timeout);
  const pageErrors = [];
  // The terminal views' own account of what they attached to, for terminalDiagnosis.
  const trail = [];
  trails.set(page, trail);
  page.on('console', (msg) => {
    if (msg.text().startsWith('terminal view ')) trail.push(`${new Date().toISOString().slice(11, 23)} ${msg.text()}`);
  });
  page.on('pageerror', (err) => {
    if (!HARMLESS.some((re) => re.test(err.message))) pageErrors.push(err.message);
  });
  await page.goto(URL);
  await page.getByRole('navigation', { name: 'Spaces' }).getByRole('button', { name: /^Space / }).first().waitFor();
  return { browser, page, pageErrors };
}

/** Polls fn until it stops throwing (or the deadline passes, then rethrows). */
export async function eventually(fn, ms = 5_000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > end) throw err;
      await sleep(100);
    }
  }
}

/** A running dev binary. */
export class App {
  constructor(child, exited) {
    this.child = child;
    this.exited = exited;
  }

  /** Starts the app and resolves once its page answers and its runtime is registered (30 s at most). */
  static async start() {
    const { createWriteStream } = await import('node:fs');
    const log = createWriteStream(env.logFile, { flags: 'a' });
    const child = spawn(env.devBin, [], {
      env: { ...process.env, GOTRACEBACK: 'all', assetdir: 'frontend/dist', devserver: `127.0.0.1:${env.port}` },
      cwd: new globalThis.URL('../..', import.meta.url).pathname,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    writeFileSync(env.pidFile, String(child.pid));
    const app = new App(child, exited);
    const end = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the dev binary exited (${child.exitCode}); see ${env.logFile}`);
      if (Date.now() > end) {
        await app.stop();
        throw new Error(`the dev binary did not come up within 30 s; see ${env.logFile}`);
      }
      if ((await pageAnswers()) && (await instanceListed(child.pid))) return app;
      await sleep(200);
    }
  }

  /**
   * SIGTERM; after 10 s SIGQUIT (the Go runtime writes every goroutine's
   * stack to the app log, so a shutdown that hangs says where), then
   * SIGKILL 3 s later. Resolves with the exit status.
   */
  async stop() {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const quit = setTimeout(() => this.child.kill('SIGQUIT'), 10_000);
      const kill = setTimeout(() => this.child.kill('SIGKILL'), 13_000);
      const r = await this.exited;
      clearTimeout(quit);
      clearTimeout(kill);
      rmSync(env.pidFile, { force: true });
      return r;
    }
    return this.exited;
  }
}

async function pageAnswers() {
  try {
    const r = await fetch(URL, { signal: AbortSignal.timeout(2_000) });
    return r.ok;
  } catch {
    return false;
  }
}

async function instanceListed(pid) {
  try {
    const { stdout } = await execFileP(env.cli, ['app', 'list'], { timeout: 5_000 });
    return stdout.split('\n').some((line) => line.trim().split(/\s+/)[0] === String(pid));
  } catch {
    return false;
  }
}

/** Calls a tool as the window does (caller renderer: no approval prompt), through page's bridge. */
export function callAsWindow(page, tool, args) {
  return page.evaluate(
    ([tool, args]) =>
      new Promise((resolve, reject) => {
        let id = null;
        const early = new Map();
        const off = window.runtime.EventsOn('tool_result', (p) => {
          if (id === null) early.set(p.callId, p.result);
          else if (p.callId === id) (off(), resolve(p.result));
        });
        window.go.app.App.Call(tool, args, {}).then((cid) => {
          id = cid;
          if (early.has(cid)) (off(), resolve(early.get(cid)));
        }, reject);
      }),
    [tool, args],
  );
}

/** The spaces and workspace tabs there are now, for tidyUp. */
export async function stateSnapshot() {
  const st = await cli('app_get_state');
  return { spaces: new Set(st.spaces.map((s) => s.id)), tabs: new Set(st.workspaceTabs.map((t) => t.id)), active: st.activeSpaceId };
}

/**
 * Closes the spaces and workspace tabs made since snapshot and makes its
 * active space active again, so the next test file finds the state it would
 * find alone (the files share one user data folder).
 */
export async function tidyUp(page, snapshot) {
  const st = await cli('app_get_state');
  for (const t of st.workspaceTabs) {
    if (!snapshot.tabs.has(t.id) && snapshot.spaces.has(t.spaceId)) await callAsWindow(page, 'close_workspace_tab', { tabId: t.id });
  }
  for (const s of st.spaces) {
    if (!snapshot.spaces.has(s.id)) await callAsWindow(page, 'close_space', { spaceId: s.id });
  }
  if (snapshot.active && st.activeSpaceId !== snapshot.active) await callAsWindow(page, 'switch_space', { spaceId: snapshot.active });
}

/**
 * What the window and the engine say about terminal tabs, for a failure
 * message: the bound terminals, the running ones, and every terminal view
 * in the page (its id attribute, whether it is visible, its status line).
 */
export async function terminalDiagnosis(page) {
  const st = await cli('app_get_state').catch((e) => ({ error: String(e) }));
  const tabs = (st.workspaceTabs ?? []).filter((t) => t.kind === 'terminal').map((t) => ({ id: t.id, terminalId: t.terminalId, pane: t.pane }));
  const terms = await cli('list_terminals').then((l) => l.map((t) => `${t.id}:${t.status}`)).catch((e) => String(e));
  const views = await page
    .evaluate(() =>
      [...document.querySelectorAll('.terminal')].map((el) => ({
        id: el.getAttribute('data-terminal-id'),
        visible: !!(el.offsetWidth || el.offsetHeight),
        status: el.querySelector('[role=status]')?.textContent?.trim() ?? '',
      })),
    )
    .catch((e) => String(e));
  const active = await page.evaluate(() => document.querySelector('[role=tab][aria-selected=true]')?.textContent?.trim()).catch(() => '?');
  return JSON.stringify({ tabs, terms, views, activeTab: active, activeSpace: st.activeSpaceId, trail: trails.get(page) ?? [] }, null, 1);
}

/** Waits for the terminal view that shows a term_ id; on a timeout the error says what the window and the engine had. */
export async function terminalView(page) {
  const view = page.locator('.terminal[data-terminal-id^="term_"]');
  await view.waitFor().catch(async (err) => {
    throw new Error(`${err.message}\n${await terminalDiagnosis(page)}`);
  });
  return view;
}

/**
 * Starts the CLI (headless build) with args, in cwd when given; resolves
 * with its exit code and its output (stdout and stderr together). The child
 * is pushed to children so an after() hook can kill what is left.
 */
export function runCLI(args, { cwd, children } = {}) {
  const child = spawn(env.cli, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children?.push(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}
