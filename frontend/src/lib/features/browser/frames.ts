// The live view's frames: pulled one at a time from the Go side's asset
// server (backend/browser FrameHandler), never pushed as Wails events.
//
//   GET /_meith/browser/frame/<tabId>?after=<seq>
//     200 image/jpeg, X-Meith-Frame-Seq / -Width / -Height, X-Meith-Device-Width / -Height
//     204 no newer frame within ~2 s, or a JavaScript dialog opened or closed (ask again)
//     (200 and 204 carry X-Meith-Dialog: <type> while the page has a dialog open)
//     404 unknown tab
//     503 the browser cannot start (the body says why)
//
// The screencast runs while somebody pulls: stopping the loop stops it.

import { abortableSleep } from '../../async/abortableSleep';

/** The path of a tab's next frame after seq. */
export function frameURL(tabId: string, after: number): string {
  return `/_meith/browser/frame/${encodeURIComponent(tabId)}?after=${after}`;
}

/** A decoded frame and the page size (CSS pixels) it shows. */
export interface LiveFrame {
  seq: number;
  image: ImageBitmap;
  width: number;
  height: number;
  deviceWidth: number;
  deviceHeight: number;
}

/** What the puller says about the stream besides frames. */
export type FrameStatus =
  | { kind: 'live' }
  /** The browser cannot start; text says why (503). */
  | { kind: 'unavailable'; text: string }
  /** The backend does not know the tab (404). */
  | { kind: 'gone' }
  /** The request failed (network, decode, unexpected status); retried. */
  | { kind: 'error'; text: string };

export interface PullOptions {
  signal: AbortSignal;
  onFrame: (f: LiveFrame) => void;
  onStatus?: (s: FrameStatus) => void;
  /**
   * Hears which JavaScript dialog the page has open ('' for none), once per
   * change: the answers (200 and 204) carry X-Meith-Dialog while one is
   * open, and the Go side answers at once when one opens or closes.
   */
  onDialog?: (type: string) => void;
  /** Test seams. */
  fetch?: typeof globalThis.fetch;
  decode?: (b: Blob) => Promise<ImageBitmap>;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Back-off before asking again after a failure, by kind. */
export const RETRY_MS = { gone: 1000, unavailable: 3000, error: 500 } as const;

/** Empty (204) answers in a row after which the puller asks for the newest frame again. */
export const IDLE_RESET = 3;

const num = (h: Headers, name: string) => Number(h.get(name) ?? '') || 0;

/**
 * Pulls a tab's frames until signal aborts: one request at a time, each
 * asking for the first frame after the last one received (the next request
 * goes out while the last frame is decoded). Resolves when the signal
 * aborts, after the last decode; never rejects.
 */
export async function pullFrames(tabId: string, opts: PullOptions): Promise<void> {
  const { signal, onFrame } = opts;
  const doFetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  const decode = opts.decode ?? ((b: Blob) => createImageBitmap(b));
  const sleep = opts.sleep ?? abortableSleep;
  let after = 0;
  let idle = 0;
  let decoding: Promise<void> = Promise.resolve();
  let last: FrameStatus['kind'] | '' = '';
  let dialog: string | null = null;
  const dialogOf = (h: Headers) => {
    const d = h.get('X-Meith-Dialog') ?? '';
    if (d === dialog) return;
    dialog = d;
    opts.onDialog?.(d);
  };
  const status = (s: FrameStatus) => {
    // Frames say "live" once, not per frame; failures repeat their text.
    if (s.kind === 'live' && last === 'live') return;
    last = s.kind;
    opts.onStatus?.(s);
  };
  const show = async (h: Headers, blob: Blob, seq: number) => {
    try {
      const image = await decode(blob);
      if (signal.aborted) {
        image.close?.();
        return;
      }
      const width = num(h, 'X-Meith-Frame-Width') || image.width;
      const height = num(h, 'X-Meith-Frame-Height') || image.height;
      const deviceWidth = num(h, 'X-Meith-Device-Width') || width;
      const deviceHeight = num(h, 'X-Meith-Device-Height') || height;
      status({ kind: 'live' });
      onFrame({ seq, image, width, height, deviceWidth, deviceHeight });
    } catch (err) {
      if (!signal.aborted) status({ kind: 'error', text: `frame: ${err instanceof Error ? err.message : String(err)}` });
    }
  };
  while (!signal.aborted) {
    let r: Response;
    try {
      r = await doFetch(frameURL(tabId, after), { signal, cache: 'no-store' });
    } catch (err) {
      if (signal.aborted) break;
      status({ kind: 'error', text: err instanceof Error ? err.message : String(err) });
      await sleep(RETRY_MS.error, signal);
      continue;
    }
    if (r.status === 204 || r.status === 200) dialogOf(r.headers);
    if (r.status === 204) {
      // A still page sends no frames. After a few empty answers ask for
      // the newest frame again: a tab reopened by the engine (after a crash
      // or a restart) counts its frames from 1 again.
      if (++idle >= IDLE_RESET) {
        idle = 0;
        after = 0;
      }
      continue;
    }
    idle = 0;
    if (r.status === 200) {
      let blob: Blob;
      try {
        blob = await r.blob();
      } catch (err) {
        if (signal.aborted) break;
        status({ kind: 'error', text: `frame: ${err instanceof Error ? err.message : String(err)}` });
        await sleep(RETRY_MS.error, signal);
        continue;
      }
      const seq = num(r.headers, 'X-Meith-Frame-Seq');
      if (seq > after) after = seq;
      // Decode and draw this frame while the next one is asked for: at
      // most one decode runs beside one request, and frames are drawn in
      // order.
      await decoding;
      decoding = show(r.headers, blob, seq);
      continue;
    }
    const text = (await r.text().catch(() => '')).trim();
    if (r.status === 404) {
      status({ kind: 'gone' });
      await sleep(RETRY_MS.gone, signal);
    } else if (r.status === 503) {
      status({ kind: 'unavailable', text: text || 'The browser is not available.' });
      await sleep(RETRY_MS.unavailable, signal);
    } else {
      status({ kind: 'error', text: `frame: HTTP ${r.status}${text ? `: ${text}` : ''}` });
      await sleep(RETRY_MS.error, signal);
    }
  }
  await decoding;
}
