// The browser benchmark's driver (bench/browser.sh runs it): one flow —
// open a tab at a local page, click a button, screenshot, close — timed for
// meith's tools over the NDJSON socket and for Playwright on the same
// Chromium, alternating run by run so both see the same machine state.
// Cold starts (first call / launch) are reported apart from warm runs.
import net from 'node:net';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(path.resolve('frontend/package.json'));
const { chromium } = require('playwright-core');

const RUNS = Number(process.env.MEITH_BENCH_RUNS || 20);
const SOCKET = process.env.MEITH_BENCH_SOCKET;
const CHROME_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

const PAGE = `<!doctype html><title>Bench</title><h1 id="h">idle</h1>
<button id="b" onclick="document.getElementById('h').textContent='clicked'">Click me</button>`;
const server = http.createServer((req, res) => { res.setHeader('Content-Type', 'text/html'); res.end(PAGE); });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const pageURL = `http://127.0.0.1:${server.address().port}/page`;
const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'meith-bench-shots-'));

// A minimal NDJSON client of meith's socket protocol.
class Client {
  constructor(sock) { this.sock = sock; this.pending = new Map(); this.buf = ''; this.n = 0; }
  async connect() {
    await new Promise((res, rej) => { this.conn = net.connect(this.sock, res); this.conn.once('error', rej); });
    this.conn.on('data', (d) => {
      this.buf += d;
      let i;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, i); this.buf = this.buf.slice(i + 1);
        const msg = JSON.parse(line);
        if (msg.type === 'tool_result') { this.pending.get(msg.requestId)?.(msg.result); this.pending.delete(msg.requestId); }
      }
    });
  }
  call(toolName, args) {
    const requestId = `req_${++this.n}`;
    return new Promise((resolve, reject) => {
      this.pending.set(requestId, (r) => (r.ok ? resolve(JSON.parse(JSON.stringify(r.content ?? null))) : reject(new Error(`${toolName}: ${r.error.code}: ${r.error.message}`))));
      this.conn.write(JSON.stringify({ type: 'tool_call', protocol: 1, requestId, toolName, arguments: args, clientInfo: { caller: 'cli' } }) + '\n');
    });
  }
  close() { this.conn.end(); }
}

// steps collects per-step times of meith's flow (the tool calls).
const steps = {};
const step = async (name, f) => {
  const t0 = performance.now();
  const v = await f();
  (steps[name] ||= []).push(performance.now() - t0);
  return v;
};

async function meithFlow(c) {
  const tab = await step('open_browser_tab', () => c.call('open_browser_tab', { url: pageURL }));
  const st = await step('get_browser_state', () => c.call('get_browser_state', { tabId: tab.id }));
  const btn = st.elements.find((e) => e.text === 'Click me');
  await step('click_element', () => c.call('click_element', { tabId: tab.id, elementId: btn.id }));
  const shot = await step('take_screenshot', () => c.call('take_screenshot', { tabId: tab.id }));
  if (!fs.existsSync(shot.path)) throw new Error('no screenshot file');
  await step('close_browser_tab', () => c.call('close_browser_tab', { tabId: tab.id }));
}

async function playwrightFlow(browser, i) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(pageURL);
  await page.click('text=Click me');
  await page.screenshot({ path: path.join(shots, `pw-${i}.png`) });
  await page.close();
}

const time = async (f) => { const t0 = performance.now(); await f(); return performance.now() - t0; };
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const p90 = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * 0.9))]; };

const c = new Client(SOCKET);
await c.connect();
let browser;
const coldMeith = await time(() => meithFlow(c)); // starts Chromium on the first browser tool
const coldPW = await time(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROME_ARGS });
  await playwrightFlow(browser, 0);
});
const m = [], p = [];
for (let i = 1; i <= RUNS; i++) {
  if (i % 2) { m.push(await time(() => meithFlow(c))); p.push(await time(() => playwrightFlow(browser, i))); }
  else { p.push(await time(() => playwrightFlow(browser, i))); m.push(await time(() => meithFlow(c))); }
}
await browser.close();
c.close();
server.close();
fs.rmSync(shots, { recursive: true, force: true });
const f = (x) => x.toFixed(1).padStart(7);
console.log(`browser flow (open tab at a local page, click, screenshot, close), ${RUNS} warm runs each, alternating`);
console.log(`                    median      p90     cold (incl. browser start)`);
console.log(`meith (socket)    ${f(median(m))} ms ${f(p90(m))} ms ${f(coldMeith)} ms`);
console.log(`playwright-core   ${f(median(p))} ms ${f(p90(p))} ms ${f(coldPW)} ms`);
console.log(`meith steps (median): ${Object.entries(steps).map(([k, v]) => `${k} ${median(v).toFixed(1)} ms`).join(', ')}`);
console.log(`ratio meith/playwright: median ${(median(m) / median(p)).toFixed(2)}×, cold ${(coldMeith / coldPW).toFixed(2)}×  (goal ≤ 1.0×)`);
