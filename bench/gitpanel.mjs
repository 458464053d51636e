// Git panel latency on a large repository (issue 5, point 11): from a file
// saved on disk to the changes chip showing it, and from a click on a file
// to its diff on screen. Drives the UI of the `-tags dev` binary in
// Chromium with playwright-core, against the real runtime (its watcher and
// git engine). Started by bench/gitpanel.sh; prints medians, asserts
// nothing.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from '../frontend/node_modules/playwright-core/index.mjs';

const url = process.env.MEITH_BENCH_URL;
const repo = process.env.MEITH_BENCH_REPO;
const runs = Number(process.env.MEITH_BENCH_RUNS || 15);

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
page.setDefaultTimeout(30_000);
await page.goto(url);
await page.getByRole('navigation', { name: 'Spaces' }).getByRole('button', { name: /^Space / }).first().waitFor();
await page.evaluate((cwd) => window.go.app.App.Call('create_space', { name: 'bench', cwd }, {}), repo);
const chip = page.getByRole('button', { name: /changed files? - open Git panel$/ });
await chip.waitFor();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

// Save → chip: append a line to a tracked file; the chip's additions grow.
const target = join(repo, 'pkg00', 'mod01', 'file01.txt');
const saves = [];
for (let i = 0; i < runs; i++) {
  const before = await chip.textContent();
  const t0 = performance.now();
  appendFileSync(target, `bench edit ${i}\n`);
  await page.waitForFunction((b) => {
    const el = [...document.querySelectorAll('button')].find((x) => /open Git panel$/.test(x.getAttribute('aria-label') ?? ''));
    return el && el.textContent !== b;
  }, before, { polling: 'raf' });
  saves.push(performance.now() - t0);
  await page.waitForTimeout(150);
}

// Click → diff: open the Git tab, then click different modified files.
await chip.click();
const changes = page.getByRole('list', { name: 'Changed files' });
await changes.locator('[data-path]').first().waitFor();
const paths = await changes.locator('[data-path]').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')));
const clicks = [];
for (let i = 0; i < Math.min(runs, paths.length); i++) {
  const p = paths[(i * 7) % paths.length];
  // Timed inside the page (click → first diff row painted), so that the
  // driver's own round trips are not counted.
  clicks.push(
    await page.evaluate(
      (path) =>
        new Promise((resolve) => {
          const t0 = performance.now();
          document.querySelector(`[data-path="${CSS.escape(path)}"]`).click();
          const check = () =>
            document.querySelector(`[aria-label="Diff of ${CSS.escape(path)}"] .row`)
              ? requestAnimationFrame(() => resolve(performance.now() - t0))
              : requestAnimationFrame(check);
          check();
        }),
      p,
    ),
  );
  await page.waitForTimeout(100);
}

console.log(`repository ${repo}: ${paths.length} changed files listed, ${runs} runs`);
console.log(`save → chip   median ${median(saves).toFixed(0)} ms   p90 ${p90(saves).toFixed(0)} ms   (goal < 150 ms)`);
console.log(`click → diff  median ${median(clicks).toFixed(0)} ms   p90 ${p90(clicks).toFixed(0)} ms   (goal < 150 ms)`);
await browser.close();
