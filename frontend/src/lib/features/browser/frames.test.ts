import { describe, expect, it } from 'vitest';
import { IDLE_RESET, frameURL, pullFrames, type FrameStatus, type LiveFrame } from './frames';

/** A scripted frame server: answers requests in order, then aborts the puller. */
function script(answers: (() => Response)[]) {
  const ac = new AbortController();
  const urls: string[] = [];
  let i = 0;
  const fetch = (async (input: RequestInfo | URL) => {
    urls.push(String(input));
    const next = answers[i++];
    if (!next) {
      ac.abort();
      throw new DOMException('aborted', 'AbortError');
    }
    return next();
  }) as typeof globalThis.fetch;
  const frames: LiveFrame[] = [];
  const statuses: FrameStatus[] = [];
  const sleeps: number[] = [];
  const run = () =>
    pullFrames('btab_1', {
      signal: ac.signal,
      fetch,
      decode: async (b) => ({ width: b.size, height: 1, close() {} }) as unknown as ImageBitmap,
      sleep: async (ms) => void sleeps.push(ms),
      onFrame: (f) => frames.push(f),
      onStatus: (s) => statuses.push(s),
    });
  return { run, urls, frames, statuses, sleeps };
}

const jpeg = (seq: number, dw = 1280, dh = 800) => () =>
  new Response(new Uint8Array([0xff, 0xd8, 0xff, seq]), {
    status: 200,
    headers: {
      'Content-Type': 'image/jpeg',
      'X-Meith-Frame-Seq': String(seq),
      'X-Meith-Frame-Width': String(dw * 2),
      'X-Meith-Frame-Height': String(dh * 2),
      'X-Meith-Device-Width': String(dw),
      'X-Meith-Device-Height': String(dh),
    },
  });
const empty = () => new Response(null, { status: 204 });

describe('pullFrames', () => {
  it('asks for the frame after the last one, one request at a time, and reads the sizes', async () => {
    const s = script([jpeg(1), empty, jpeg(4, 640, 400), jpeg(5), empty]);
    await s.run();
    expect(s.urls.slice(0, 4)).toEqual([
      '/_meith/browser/frame/btab_1?after=0',
      '/_meith/browser/frame/btab_1?after=1',
      '/_meith/browser/frame/btab_1?after=1', // 204: ask again
      '/_meith/browser/frame/btab_1?after=4',
    ]);
    expect(s.frames.map((f) => [f.seq, f.width, f.height, f.deviceWidth, f.deviceHeight])).toEqual([
      [1, 2560, 1600, 1280, 800],
      [4, 1280, 800, 640, 400],
      [5, 2560, 1600, 1280, 800],
    ]);
    expect(s.statuses).toEqual([{ kind: 'live' }]); // said once
  });

  it('reports an unavailable browser with its text, a gone tab, and retries after a pause', async () => {
    const s = script([
      () => new Response('no Chromium found: install chromium or set MEITH_CHROME', { status: 503 }),
      () => new Response('unknown tab', { status: 404 }),
      () => new Response('boom', { status: 500 }),
      jpeg(1),
      empty,
    ]);
    await s.run();
    expect(s.statuses).toEqual([
      { kind: 'unavailable', text: 'no Chromium found: install chromium or set MEITH_CHROME' },
      { kind: 'gone' },
      { kind: 'error', text: 'frame: HTTP 500: boom' },
      { kind: 'live' },
    ]);
    expect(s.sleeps).toEqual([3000, 1000, 500]);
    expect(s.frames).toHaveLength(1);
  });

  it('asks for the newest frame again after a few empty answers (a reopened tab counts from 1)', async () => {
    const s = script([jpeg(7), ...Array.from({ length: IDLE_RESET }, () => empty), jpeg(1), empty]);
    await s.run();
    expect(s.urls[IDLE_RESET]).toContain('after=7');
    expect(s.urls[IDLE_RESET + 1]).toContain('after=0');
    expect(s.frames.map((f) => f.seq)).toEqual([7, 1]);
  });

  it('asks for the next frame while the last one decodes, one decode at a time, frames drawn in order', async () => {
    const ac = new AbortController();
    const answers = [jpeg(1), jpeg(2), jpeg(3), empty, empty, empty];
    const events: string[] = [];
    let i = 0;
    let inflight = 0;
    await pullFrames('btab_1', {
      signal: ac.signal,
      fetch: (async (u: RequestInfo | URL) => {
        events.push(`ask ${String(u).split('after=')[1]}`);
        const next = answers[i++];
        if (!next) {
          ac.abort();
          throw new DOMException('aborted', 'AbortError');
        }
        if (next === empty) await new Promise((r) => setTimeout(r, 20)); // a long poll with no frame
        return next();
      }) as typeof globalThis.fetch,
      decode: async (b) => {
        const n = new Uint8Array(await b.arrayBuffer())[3];
        events.push(`decode ${n}`);
        expect(++inflight).toBe(1);
        await new Promise((r) => setTimeout(r, 5));
        inflight--;
        return { width: 1, height: 1, close() {} } as unknown as ImageBitmap;
      },
      onFrame: (f) => events.push(`draw ${f.seq}`),
    });
    // Frame 1 decodes while frame 2 is asked for; frame 2's decode waits for frame 1's.
    expect(events.indexOf('ask 1')).toBeLessThan(events.indexOf('draw 1'));
    expect(events.indexOf('decode 2')).toBeGreaterThan(events.indexOf('draw 1'));
    expect(events.filter((e) => e.startsWith('draw'))).toEqual(['draw 1', 'draw 2', 'draw 3']);
  });

  it('stops at once when aborted, and escapes the tab id', async () => {
    const ac = new AbortController();
    ac.abort();
    let asked = 0;
    await pullFrames('x', { signal: ac.signal, onFrame: () => {}, fetch: (async () => (asked++, empty())) as unknown as typeof fetch });
    expect(asked).toBe(0);
    expect(frameURL('a/b c', 3)).toBe('/_meith/browser/frame/a%2Fb%20c?after=3');
  });
});

describe('pullFrames and JavaScript dialogs', () => {
  it('reports the dialog the answers say is open, and when it closed', async () => {
    const dialog = (type: string) => () => new Response(null, { status: 204, headers: { 'X-Meith-Dialog': type } });
    const ac = new AbortController();
    const answers = [jpeg(1), dialog('confirm'), dialog('confirm'), empty];
    let i = 0;
    const seen: string[] = [];
    await pullFrames('btab_1', {
      signal: ac.signal,
      fetch: (async () => {
        const next = answers[i++];
        if (!next) {
          ac.abort();
          throw new DOMException('aborted', 'AbortError');
        }
        return next();
      }) as typeof globalThis.fetch,
      decode: async () => ({ width: 1, height: 1, close() {} }) as unknown as ImageBitmap,
      sleep: async () => {},
      onFrame: () => {},
      onDialog: (type) => seen.push(type),
    });
    // Said once per change: none, then confirm, then none again.
    expect(seen).toEqual(['', 'confirm', '']);
  });
});
