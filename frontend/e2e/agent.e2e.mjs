// End-to-end test of the agent tab, with the real backend (the `-tags dev`
// binary, harness.mjs), the window's UI in /usr/bin/chromium driven by
// playwright-core, and a real ACP agent: the scripted agent of
// backend/agent/testdata (ACP over stdio, MCP over HTTP to the session's
// bridge), configured as the custom preset. The session works in a git
// repository (the app's home folder here), so a checkpoint is taken before
// the run.
//
// The user opens an agent tab, asks for work; the agent streams text and
// calls a privileged meith tool; the inline permission card shows the tool;
// the user allows it; the tool runs (a new tab appears), the card turns into
// a completed tool call and the answer arrives. The checkpoint is listed and
// compared.
//
//   bash scripts/e2e.sh
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, cli, openWindow, eventually as poll } from './harness.mjs';

const eventually = (fn, ms = 20_000) => poll(fn, ms);

let app;
let browser;
let page;
let home;
let savedHome;
let pageErrors = [];

before(async () => {
  const agentBin = process.env.MEITH_SCRIPTAGENT;
  assert.ok(agentBin, 'MEITH_SCRIPTAGENT is not set (run scripts/e2e.sh)');
  // The agent is the custom preset, configured before the app starts.
  const agentDir = join(process.env.MEITH_USER_DATA, 'agent');
  mkdirSync(agentDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(agentDir, 'config.json'), JSON.stringify({ preset: 'custom', command: agentBin, args: [], model: '', reasoning: '', autoAccept: false }), { mode: 0o600 });
  // The space's folder is "~": make the app's home a git repository.
  home = mkdtempSync(join(tmpdir(), 'meith-e2e-agent-'));
  const git = (...args) => execFileSync('git', ['-C', home, '-c', 'user.name=e2e', '-c', 'user.email=e2e@example.com', ...args]);
  git('init', '-q');
  writeFileSync(join(home, 'README.md'), 'first\n');
  git('add', 'README.md');
  git('commit', '-q', '-m', 'init');
  writeFileSync(join(home, 'README.md'), 'first\nwork in progress\n');
  savedHome = process.env.HOME;
  process.env.HOME = home;
  app = await App.start();
  process.env.HOME = savedHome;
  ({ browser, page, pageErrors } = await openWindow({ timeout: 20_000 }));
  page.on('dialog', (d) => d.accept());
});

after(async () => {
  await browser?.close();
  await app?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('the agent tab with the real backend and a real ACP agent', { concurrency: false }, () => {
  test('ask, approve inline, see the tool run and the answer', { timeout: 90_000 }, async () => {
    await page.getByRole('button', { name: 'Open agent tab' }).first().click();
    const view = page.getByTestId('agent-view');
    await view.waitFor();
    const box = view.getByRole('textbox', { name: 'Message the agent' });
    await box.fill(['Open a notes tab', 'say Opening a tab for the notes.', `call open_workspace_tab {"title":"Agent notes","cwd":"${home}","pane":"secondary"}`, 'say Done.'].join('\n'));
    await view.getByRole('button', { name: 'Send' }).click();

    // The inline card names the tool and what it will do.
    const card = view.getByRole('group', { name: 'Permission required' });
    await card.waitFor();
    assert.match((await card.textContent()).replace(/\s+/g, ' '), /The agent wants to run\s*open_workspace_tab\s*to write files/);
    assert.match(await card.textContent(), /Agent notes/);
    // The streamed text is there while the tool waits.
    const answer = view.locator('[data-testid="agent-message"][data-role="assistant"]').last();
    await eventually(async () => assert.match(await answer.textContent(), /Opening a tab for the notes\./));
    if (process.env.MEITH_E2E_SHOTS) await page.screenshot({ path: join(process.env.MEITH_E2E_SHOTS, 'agent-tab.png') });
    const sessions = await cli('agent_list_sessions');
    assert.equal(sessions.sessions.length, 1);
    assert.equal(sessions.sessions[0].pendingPermissions, 1);
    await card.getByRole('button', { name: 'Allow' }).click();

    // The tool ran: a tab "Agent notes" appears; the card is a completed call.
    await page.getByRole('tab', { name: /Agent notes/ }).first().waitFor();
    const call = view.locator('[data-testid="agent-tool-call"][data-tool="open_workspace_tab"]');
    await eventually(async () => assert.equal(await call.getAttribute('data-status'), 'completed'));
    await eventually(async () => assert.match(await answer.textContent(), /open_workspace_tab: ok[\s\S]*Done\./));
    await card.waitFor({ state: 'detached' });
    await view.getByRole('button', { name: 'Send' }).waitFor(); // the run is over: Stop is Send again

    // The runtime agrees: one idle session, its call audited as the agent's.
    const id = sessions.sessions[0].id;
    const tr = await eventually(async () => {
      const t = await cli('agent_get_transcript', '--sessionId', id);
      assert.equal(t.session.status, 'idle');
      return t;
    });
    const tc = tr.messages.at(-1).toolCalls.find((c) => c.name === 'open_workspace_tab');
    assert.equal(tc.status, 'completed');
    assert.equal(tc.decision, 'allow');
    assert.equal(tr.session.title, 'Open Notes Tab');

    // The checkpoint taken before the run is listed; after an edit, Compare
    // shows the change since the checkpoint.
    writeFileSync(join(home, 'README.md'), 'first\nwork in progress\nan edit after the run\n');
    await view.getByRole('button', { name: /^Checkpoints 1/ }).click();
    await view.getByRole('button', { name: /^Compare Before agent run: Open Notes Tab/ }).click();
    const cmp = view.getByTestId('agent-checkpoint-compare');
    await cmp.waitFor();
    await eventually(async () => assert.match(await cmp.textContent(), /1 file changed[\s\S]*README\.md/));
    await cmp.getByText('an edit after the run').first().waitFor();
  });

  test('Stop cancels a running turn', { timeout: 60_000 }, async () => {
    const view = page.getByTestId('agent-view');
    const box = view.getByRole('textbox', { name: 'Message the agent' });
    await box.fill('say thinking hard\nsleep 60s\nsay never');
    await view.getByRole('button', { name: 'Send' }).click();
    const answer = view.locator('[data-testid="agent-message"][data-role="assistant"]').last();
    await eventually(async () => assert.match(await answer.textContent(), /thinking hard/));
    await view.getByRole('button', { name: 'Stop' }).click();
    await view.getByRole('button', { name: 'Send' }).waitFor();
    const list = await eventually(async () => {
      const l = await cli('agent_list_sessions');
      assert.equal(l.sessions[0].status, 'cancelled');
      return l;
    });
    assert.equal(list.sessions.length, 1);
    assert.doesNotMatch(await answer.textContent(), /never/);
  });

  test('closing the tabs leaves the space as it was', { timeout: 30_000 }, async () => {
    // The next test files start from an empty space.
    for (let i = 0; i < 10; i++) {
      const close = page.getByRole('button', { name: /^Close / });
      if ((await close.count()) === 0) break;
      await close.first().click();
      await page.waitForTimeout(300);
    }
    await eventually(async () => assert.deepEqual((await cli('app_get_state')).workspaceTabs, []));
    // The agent opened its tab in a second pane: close the split again.
    const layout = async () => (await cli('app_get_state')).spaces[0].layout;
    if ((await layout()).split) {
      await page.locator('body').click({ position: { x: 640, y: 400 } });
      await page.keyboard.press('Control+Backslash');
    }
    await eventually(async () => {
      const l = await layout();
      assert.equal(l.split, false, JSON.stringify(l));
      assert.equal(l.focusedPane, 'primary', JSON.stringify(l));
    });
  });

  test('no unexpected page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
