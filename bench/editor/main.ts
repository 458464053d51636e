// The editor benchmark's page (bench/editor.mjs drives it): the editor tab's
// own CodeMirror setup (frontend/src/lib/features/editor/setup.ts, the Go
// language pack) and its quick-open palette (QuickOpen.svelte with the
// matcher's Web Worker), each next to an anchor measured in the same run: a
// plain <textarea> holding the same text, and a plain substring filter
// rendering the same number of rows. Exposes window.bench; times are taken
// inside the page, from the start of the work to the frame after it.
import { EditorState, Text } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { mount, unmount } from 'svelte';
import { baseExtensions, languageSlot } from '../../frontend/src/lib/features/editor/setup';
import { loadLanguage } from '../../frontend/src/lib/features/editor/languages';
import { FileIndex } from '../../frontend/src/lib/features/editor/fileIndex.svelte';
import QuickOpen from '../../frontend/src/lib/features/editor/QuickOpen.svelte';

const stage = document.getElementById('stage')!;

/** Resolves after the next frame has been produced (rAF, then a task after it). */
const afterPaint = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));

/** A file list that is already read (no file tools on this page). */
class ReadyIndex extends FileIndex {
  constructor(paths: string[]) {
    super('/bench');
    this.paths = paths;
    this.version++;
  }
  override ensure(): Promise<void> {
    return Promise.resolve();
  }
}

let view: EditorView | null = null;
let area: HTMLTextAreaElement | null = null;
let palette: ReturnType<typeof mount> | null = null;
let text = '';
let names: string[] = [];

// Keystroke → next frame, recorded while `recording`.
let recording = false;
const keyLatencies: number[] = [];
document.addEventListener(
  'keydown',
  () => {
    if (!recording) return;
    const t0 = performance.now();
    void afterPaint().then(() => keyLatencies.push(performance.now() - t0));
  },
  true,
);

// Frame intervals, recorded while `recording`.
const frames: number[] = [];
function frameLoop(last: number) {
  requestAnimationFrame((t) => {
    if (recording) frames.push(t - last);
    frameLoop(t);
  });
}
frameLoop(performance.now());

function clear() {
  view?.destroy();
  view = null;
  area?.remove();
  area = null;
  if (palette) unmount(palette);
  palette = null;
  stage.replaceChildren();
}

const api = {
  setText(t: string) {
    text = t;
  },
  setNames(n: string[]) {
    names = n;
  },
  /** Loads the Go pack once (the app loads it lazily with the first Go file). */
  async preloadGo(): Promise<void> {
    await loadLanguage('x.go');
  },
  /** The editor: state as EditorStore.load builds it, the view, to painted lines. */
  async openEditor(): Promise<number> {
    clear();
    const lang = (await loadLanguage('x.go'))!;
    await afterPaint();
    const t0 = performance.now();
    const doc = Text.of(text.split(/\r\n?|\n/));
    const state = EditorState.create({ doc, extensions: [baseExtensions(), EditorState.readOnly.of(false)] });
    view = new EditorView({ state, parent: stage });
    view.dispatch({ effects: languageSlot.reconfigure(lang) });
    await afterPaint();
    const ms = performance.now() - t0;
    if (!stage.querySelector('.cm-line')) throw new Error('no painted lines');
    return ms;
  },
  /** The anchor: a plain textarea with the same text, to painted lines. */
  async openTextarea(): Promise<number> {
    clear();
    await afterPaint();
    const t0 = performance.now();
    area = document.createElement('textarea');
    area.value = text;
    stage.append(area);
    area.getBoundingClientRect();
    await afterPaint();
    return performance.now() - t0;
  },
  /** Puts the cursor in the middle of the document and focuses it. */
  focusMiddle(): void {
    if (view) {
      const line = view.state.doc.line(Math.floor(view.state.doc.lines / 2));
      view.dispatch({ selection: { anchor: line.to }, scrollIntoView: true });
      view.focus();
    } else if (area) {
      const mid = text.indexOf('\n', Math.floor(text.length / 2));
      area.focus();
      area.setSelectionRange(mid, mid);
      const lineHeight = 19.5;
      area.scrollTop = (text.slice(0, mid).split('\n').length - 10) * lineHeight;
    }
  },
  startRecording(): void {
    frames.length = 0;
    keyLatencies.length = 0;
    recording = true;
  },
  async stopRecording(): Promise<{ frames: number[]; keys: number[] }> {
    await afterPaint();
    await afterPaint();
    recording = false;
    return { frames: [...frames], keys: [...keyLatencies] };
  },
  /** What the editor (or textarea) holds now: its length. */
  docLength(): number {
    return view ? view.state.doc.length : (area?.value.length ?? 0);
  },
  /** Mounts the quick-open palette over the names. */
  async openPalette(): Promise<void> {
    clear();
    palette = mount(QuickOpen, { target: stage, props: { index: new ReadyIndex(names), onPick: () => {}, onClose: () => {} } });
    // Ready once the worker has the list and answered the empty query.
    const list = () => stage.querySelector<HTMLElement>('[role="listbox"]');
    while (Number(list()?.dataset.total ?? 0) < names.length) await new Promise((r) => setTimeout(r, 20));
    await afterPaint();
  },
  /**
   * Types query into the palette one character at a time; each keystroke is
   * timed from the input event to the frame after the list shows its answer.
   */
  async typePalette(query: string): Promise<{ wall: number[]; matcher: number[] }> {
    const input = stage.querySelector<HTMLInputElement>('input[aria-label="Go to file"]')!;
    const list = stage.querySelector<HTMLElement>('[role="listbox"]')!;
    input.value = '';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((r) => setTimeout(r, 100));
    const out: number[] = [];
    const matcher: number[] = [];
    for (let i = 1; i <= query.length; i++) {
      const changed = new Promise<void>((resolve) => {
        const mo = new MutationObserver(() => (mo.disconnect(), resolve()));
        mo.observe(list, { childList: true, subtree: true, attributes: true, characterData: true });
      });
      const t0 = performance.now();
      input.value = query.slice(0, i);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await changed;
      await afterPaint();
      out.push(performance.now() - t0);
      matcher.push(Number(list.dataset.ms));
    }
    return { wall: out, matcher };
  },
  /** The anchor: a plain case-insensitive substring filter over every name, rendering the first 60 rows. */
  async openFilterAnchor(): Promise<void> {
    clear();
    const box = document.createElement('div');
    box.innerHTML = '<input aria-label="filter"><div class="rows"></div>';
    stage.append(box);
    await afterPaint();
  },
  async typeFilterAnchor(query: string): Promise<number[]> {
    const input = stage.querySelector<HTMLInputElement>('input[aria-label="filter"]')!;
    const rows = stage.querySelector<HTMLElement>('.rows')!;
    const lower = names.map((n) => n.toLowerCase());
    const out: number[] = [];
    for (let i = 1; i <= query.length; i++) {
      const t0 = performance.now();
      const q = query.slice(0, i).toLowerCase();
      input.value = q;
      const hits: string[] = [];
      let total = 0;
      for (let k = 0; k < lower.length; k++) if (lower[k].includes(q) && total++ < 60) hits.push(names[k]);
      input.dataset.total = String(total);
      rows.replaceChildren(
        ...hits.map((h) => {
          const d = document.createElement('div');
          d.textContent = h;
          return d;
        }),
      );
      await afterPaint();
      out.push(performance.now() - t0);
    }
    return out;
  },
};

(window as unknown as { bench: typeof api }).bench = api;
document.body.dataset.ready = 'true';
