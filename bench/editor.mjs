// Editor tab speed (issue 15, point 8), driven by bench/editor.sh: the
// benchmark page (bench/editor/main.ts, the editor's own CodeMirror setup and
// quick-open palette) in Debian's /usr/bin/chromium with playwright-core.
// Every measure runs next to its anchor in the same run, alternating, and is
// reported as medians and a ratio; nothing is asserted.
//   1. open a 5 MB Go file → first painted lines   (anchor: a <textarea> with the same text)
//   2. typing in the middle of it: frame intervals and keystroke → next frame (same anchor)
//   3. quick open on 50,000 names: keystroke → ranked list painted (anchor: a substring filter)
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { chromium } from '../frontend/node_modules/playwright-core/index.mjs';

const dir = process.env.MEITH_BENCH_PAGE;
const runs = Number(process.env.MEITH_BENCH_RUNS || 5);
// Which parts run (all by default): open, typing, quickopen.
const parts = new Set((process.env.MEITH_BENCH_PARTS || 'open,typing,quickopen').split(','));

// ---- The inputs ----

/** About `bytes` of Go source: a realistic file repeated with distinct names. */
function goSource(bytes) {
  const unit = (i) => `// Handler${i} serves the ${i}th route of the service.
func Handler${i}(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	items, err := store.List(ctx, Query{Limit: ${i % 100 + 1}, Prefix: "item-${i}"})
	if err != nil {
		http.Error(w, fmt.Sprintf("list: %v", err), http.StatusInternalServerError)
		return
	}
	for _, it := range items {
		if it.Size > 1<<20 && !it.Pinned {
			continue // too large for the page
		}
		fmt.Fprintf(w, "%s\\t%d\\n", it.Name, it.Size)
	}
}

`;
  const parts = ['package bench\n\nimport (\n\t"context"\n\t"fmt"\n\t"net/http"\n\t"time"\n)\n\n'];
  let n = parts[0].length;
  for (let i = 0; n < bytes; i++) {
    const u = unit(i);
    parts.push(u);
    n += u.length;
  }
  return parts.join('');
}

const text = goSource(5 * 1024 * 1024);
const namesFile = join(dir, 'names.txt');
let names = existsSync(namesFile) ? readFileSync(namesFile, 'utf8').split('\n').filter(Boolean) : [];
let namesFrom = 'the repository';
if (names.length < 50_000) {
  namesFrom = 'generated';
  names = [];
  const exts = ['go', 'ts', 'svelte', 'md', 'json', 'py', 'rs', 'css'];
  for (let i = 0; i < 50_000; i++) names.push(`pkg${String(i % 50).padStart(2, '0')}/mod${String((i >> 3) % 40).padStart(2, '0')}/sub${i % 7}/file_${i}.${exts[i % exts.length]}`);
}

// ---- The page ----

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.txt': 'text/plain' };
const server = createServer((req, res) => {
  const rel = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  const file = join(dir, rel === '/' ? 'index.html' : rel);
  if (!file.startsWith(dir) || !existsSync(file)) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
page.setDefaultTimeout(60_000);
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
await page.goto(url);
await page.waitForFunction(() => document.body.dataset.ready === 'true');
await page.evaluate(([t, n]) => (window.bench.setText(t), window.bench.setNames(n)), [text, names]);
await page.evaluate(() => window.bench.preloadGo());

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const pct = (xs, p) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const f = (x) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

// 1. Open to first painted lines.
const openEd = [];
const openTa = [];
for (let i = 0; parts.has('open') && i < runs; i++) {
  openEd.push(await page.evaluate(() => window.bench.openEditor()));
  openTa.push(await page.evaluate(() => window.bench.openTextarea()));
}

// 2. Typing in the middle: 60 characters at one key every 30 ms, a new line every 30
// (once: the textarea takes minutes).
const typed = Array.from({ length: 60 }, (_, i) => (i % 30 === 29 ? '\n' : 'abcdefghij '[i % 11])).join('');
async function typing(open) {
  await page.evaluate(open);
  await page.evaluate(() => window.bench.focusMiddle());
  await page.waitForTimeout(300);
  const before = await page.evaluate(() => window.bench.docLength());
  await page.evaluate(() => window.bench.startRecording());
  for (const ch of typed) {
    if (ch === '\n') await page.keyboard.press('Enter');
    else await page.keyboard.type(ch);
    await page.waitForTimeout(30);
  }
  const rec = await page.evaluate(() => window.bench.stopRecording());
  const after = await page.evaluate(() => window.bench.docLength());
  if (after - before < typed.length) throw new Error(`typing reached the document ${after - before} of ${typed.length} times`);
  return rec;
}
const typeEd = { frames: [], keys: [] };
const typeTa = { frames: [], keys: [] };
if (parts.has('typing')) {
  const e = await typing(() => window.bench.openEditor());
  const t = await typing(() => window.bench.openTextarea());
  typeEd.frames.push(...e.frames), typeEd.keys.push(...e.keys);
  typeTa.frames.push(...t.frames), typeTa.keys.push(...t.keys);
}
const slow = (fr) => `${((100 * fr.filter((x) => x > 20).length) / fr.length).toFixed(1)}%`;

// 3. Quick open: every prefix of a few queries, typed from an empty field.
const picks = Array.from({ length: runs }, (_, i) => names[(i * 9973) % names.length]);
const queries = picks.map((p) => p.slice(Math.max(0, p.length - 16)));
const qoPal = [];
const qoMatch = [];
const qoAnc = [];
if (parts.has('quickopen')) {
  await page.evaluate(() => window.bench.openPalette());
  for (const q of queries) {
    const r = await page.evaluate((q) => window.bench.typePalette(q), q);
    qoPal.push(...r.wall), qoMatch.push(...r.matcher);
    if (process.env.MEITH_BENCH_VERBOSE) console.log(q, r.wall.map(f).join(' '), '| matcher', r.matcher.map(f).join(' '));
  }
  await page.evaluate(() => window.bench.openFilterAnchor());
  for (const q of queries) qoAnc.push(...(await page.evaluate((q) => window.bench.typeFilterAnchor(q), q)));
}

await browser.close();
server.close();

const line = (name, s) => console.log(name.padEnd(24) + s);
console.log(`chromium headless, 1280×820; ${(text.length / 1048576).toFixed(1)} MiB Go (${text.split('\n').length} lines); ${names.length} names (${namesFrom}); ${runs} runs`);
if (openEd.length)
  line('open → painted lines', `editor median ${f(median(openEd))} ms (max ${f(Math.max(...openEd))})   textarea ${f(median(openTa))} ms   ratio ${ratio(median(openEd), median(openTa))}   (goal ≤ 300 ms)`);
if (typeEd.frames.length) {
  line('typing, frame interval', `editor median ${f(median(typeEd.frames))} ms p95 ${f(pct(typeEd.frames, 0.95))} ms, ${slow(typeEd.frames)} over 20 ms   textarea median ${f(median(typeTa.frames))} p95 ${f(pct(typeTa.frames, 0.95))} ms, ${slow(typeTa.frames)} over 20 ms   (goal 60 fps: 16.7 ms)`);
  line('typing, key → frame', `editor median ${f(median(typeEd.keys))} ms p95 ${f(pct(typeEd.keys, 0.95))} ms   textarea median ${f(median(typeTa.keys))} p95 ${f(pct(typeTa.keys, 0.95))} ms   ratio ${ratio(median(typeEd.keys), median(typeTa.keys))}`);
}
if (qoPal.length)
  line('quick open, keystroke', `palette median ${f(median(qoPal))} ms p90 ${f(pct(qoPal, 0.9))} max ${f(Math.max(...qoPal))} (matcher alone median ${f(median(qoMatch))} p90 ${f(pct(qoMatch, 0.9))})   substring filter median ${f(median(qoAnc))} p90 ${f(pct(qoAnc, 0.9))}   ratio ${ratio(median(qoPal), median(qoAnc))}   (goal ≤ 50 ms; ${qoPal.length} keystrokes)`);
if (errors.length) console.log(`page errors: ${errors.join(' | ')}`);
