// Live browser view throughput and latency (issue 6): the window's UI (the
// `-tags dev` binary's frontend in Chromium, driven by playwright-core)
// shows a browser tab of the real backend (its own Chromium) in a pane
// sized so that the page viewport is 1280×800.
//   fps      frames drawn into the view's canvas per second over 5 s while
//            the page animates (requestAnimationFrame changes its colour)
//   latency  from the pointer event on the canvas to the first drawn frame
//            whose sampled pixel shows the colour the page switched to on
//            mousedown (20 clicks)
// Started by bench/browserview.sh; prints the numbers, asserts nothing.
// Goals: ≥ 30 fps, ≤ 100 ms.
import { createServer } from 'node:http';
import { chromium } from '../frontend/node_modules/playwright-core/index.mjs';

const url = process.env.MEITH_BENCH_URL;
const CLICKS = Number(process.env.MEITH_BENCH_CLICKS || 20);
const SECONDS = Number(process.env.MEITH_BENCH_SECONDS || 5);
const [vw, vh] = (process.env.MEITH_BENCH_SIZE || '1280x800').split('x').map(Number);
const VIEW = { width: vw, height: vh };

const COLOURS = [
  [220, 20, 60],
  [30, 144, 255],
];
const PAGES = {
  '/animate': `<!doctype html><title>animate</title><style>html,body{margin:0;height:100%}</style>
<script>let n = 0; function step() { n++; document.body.style.background = 'hsl(' + (n * 7 % 360) + ',80%,50%)'; requestAnimationFrame(step); }
requestAnimationFrame(step);</script>`,
  '/click': `<!doctype html><title>click</title><style>html,body{margin:0;height:100%;background:rgb(255,255,255)}</style>
<script>const c = ${JSON.stringify(COLOURS)}; let k = 0;
addEventListener('mousedown', () => { document.body.style.background = 'rgb(' + c[k++ % c.length] + ')'; });</script>`,
};
const server = createServer((req, res) => {
  const body = PAGES[new globalThis.URL(req.url, 'http://x').pathname];
  res.writeHead(body ? 200 : 404, { 'Content-Type': 'text/html' });
  res.end(body ?? 'not found');
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
page.setDefaultTimeout(30_000);
await page.goto(url);
await page.getByRole('navigation', { name: 'Spaces' }).getByRole('button', { name: /^Space / }).first().waitFor();

/** Calls a tool as the window does; resolves with its result. */
const windowCall = (tool, args) =>
  page.evaluate(
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

// MEITH_BENCH_DEBUG=1 logs the view's viewport calls and frame sizes.
if (process.env.MEITH_BENCH_DEBUG) {
  page.on('console', (m) => m.type() === 'warning' && console.error('page:', m.text()));
  await page.evaluate(() => {
    const app = window.go.app.App;
    const orig = app.BrowserViewport;
    app.BrowserViewport = (...a) => {
      console.warn('viewport call ' + JSON.stringify(a) + ' at ' + Math.round(performance.now()));
      return orig(...a).then(
        (r) => (console.warn('viewport done ' + JSON.stringify(a) + ' at ' + Math.round(performance.now())), r),
        (e) => (console.warn('viewport failed ' + JSON.stringify(a) + ' ' + e), Promise.reject(e)),
      );
    };
    let last = '';
    setInterval(() => {
      const v = window.__meithBrowserView;
      const k = v ? `${v.deviceWidth}x${v.deviceHeight}` : '';
      if (k !== last) console.warn('device ' + k + ' at ' + Math.round(performance.now()) + ' seq ' + v.seq);
      last = k;
    }, 50);
  });
}
// Size the window so that the view's canvas (and so the page viewport) is
// 1280×800: measure the canvas of a blank tab first, so that the measured
// tab gets its size once, at its start.
const open = async (u) => {
  const r = await windowCall('open_browser_tab', { url: u });
  if (!r.ok) throw new Error(`open_browser_tab: ${JSON.stringify(r)}`);
  await page.locator(`canvas[data-tab-id="${r.content.id}"]`).waitFor();
  return r.content.id;
};
const probe = await open('about:blank');
const box = await page.locator(`canvas[data-tab-id="${probe}"]`).boundingBox();
const win = page.viewportSize();
await windowCall('close_browser_tab', { tabId: probe });
await page.setViewportSize({ width: win.width + VIEW.width - Math.round(box.width), height: win.height + VIEW.height - Math.round(box.height) });
const tabId = await open(`${origin}/animate`);
const canvas = page.locator(`canvas[data-tab-id="${tabId}"]`);
await page.waitForFunction(
  ([id, w, h]) => {
    const s = window.__meithBrowserView;
    return s && s.tabId === id && s.deviceWidth === w && s.deviceHeight === h;
  },
  [tabId, VIEW.width, VIEW.height],
);
await page.waitForTimeout(1000); // let the screencast settle at the new size

// Throughput: frames drawn per second while the page animates.
const fps = await page.evaluate(async (secs) => {
  const s = window.__meithBrowserView;
  const f0 = s.framesDrawn;
  const q0 = s.seq;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, secs * 1000));
  const dt = (performance.now() - t0) / 1000;
  return { drawn: (s.framesDrawn - f0) / dt, seq: (s.seq - q0) / dt, size: `${s.deviceWidth}×${s.deviceHeight}` };
}, SECONDS);

// Latency: mousedown on the canvas → first drawn frame with the new colour.
const nav = await windowCall('navigate', { tabId, url: `${origin}/click` });
if (!nav.ok) throw new Error(`navigate: ${JSON.stringify(nav)}`);
const SAMPLE = { x: Math.round(VIEW.width / 2), y: Math.round(VIEW.height / 2) }; // canvas CSS px: the middle of the page
await page.waitForFunction(
  ([sel, x, y]) => {
    const c = document.querySelector(sel);
    const s = c.width / c.getBoundingClientRect().width;
    const d = c.getContext('2d').getImageData(Math.round(x * s), Math.round(y * s), 1, 1).data;
    return d[0] > 240 && d[1] > 240 && d[2] > 240; // the white page is shown
  },
  [`canvas[data-tab-id="${tabId}"]`, SAMPLE.x, SAMPLE.y],
);
const cbox = await canvas.boundingBox();
const latencies = [];
for (let i = 0; i < CLICKS; i++) {
  const want = COLOURS[i % COLOURS.length];
  await page.evaluate(
    ([sel, x, y, want]) => {
      const c = document.querySelector(sel);
      const ctx = c.getContext('2d');
      const s = c.width / c.getBoundingClientRect().width;
      const stats = window.__meithBrowserView;
      window.__benchClick = new Promise((resolve) => {
        let t0 = 0;
        let seen = stats.framesDrawn;
        c.addEventListener('pointerdown', () => (t0 = performance.now()), { capture: true, once: true });
        const check = () => {
          if (t0 && stats.framesDrawn !== seen) {
            seen = stats.framesDrawn;
            const d = ctx.getImageData(Math.round(x * s), Math.round(y * s), 1, 1).data;
            if (want.every((v, k) => Math.abs(v - d[k]) <= 40)) return resolve(stats.lastFrameAt - t0);
          }
          requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      });
    },
    [`canvas[data-tab-id="${tabId}"]`, SAMPLE.x, SAMPLE.y, want],
  );
  await page.mouse.click(cbox.x + SAMPLE.x, cbox.y + SAMPLE.y);
  latencies.push(await page.evaluate(() => window.__benchClick));
  await page.waitForTimeout(150 + Math.random() * 100);
}

const sorted = [...latencies].sort((a, b) => a - b);
const pick = (q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
const ms = (v) => `${v.toFixed(1)} ms`;
console.log(`live view, page viewport ${fps.size}`);
console.log(`  fps (frames drawn/s over ${SECONDS} s, animating page): ${fps.drawn.toFixed(1)}  (frames the engine produced: ${fps.seq.toFixed(1)}/s)   goal ≥ 30`);
console.log(`  click → updated frame (${latencies.length} clicks): median ${ms(pick(0.5))}, p90 ${ms(pick(0.9))}, min ${ms(sorted[0])}, max ${ms(sorted[sorted.length - 1])}   goal ≤ 100 ms`);

await windowCall('close_browser_tab', { tabId });
await browser.close();
server.close();
