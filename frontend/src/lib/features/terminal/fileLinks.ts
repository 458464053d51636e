// File references printed in a terminal ("src/app.ts:12", "./main.go:3:7",
// "/abs/path/x.py:40") as xterm links that open the file in the editor at
// the line and column. Paths are relative to the terminal's folder. URLs are
// left to the web-links addon.
import type { IBufferCellPosition, ILink, ILinkProvider, Terminal } from '@xterm/xterm';

/** One file reference found in a line of text. */
export interface FileRef {
  /** Index of the first and one past the last character in the line. */
  start: number;
  end: number;
  path: string;
  line: number;
  column?: number;
}

// A path (with a slash or a dotted extension), then :line and optionally :column.
const REF = /(?<![\w./~-])((?:\.{1,2})?\/?(?:[\w.@+-]+\/)*[\w@+-][\w.@+-]*):(\d+)(?::(\d+))?/g;

/** The file references of a line, left to right. */
export function findFileRefs(text: string): FileRef[] {
  const out: FileRef[] = [];
  for (const m of text.matchAll(REF)) {
    const path = m[1];
    const start = m.index ?? 0;
    // Not a URL's host:port, and a path-looking token (a folder or an extension).
    if (/:\/\/$/.test(text.slice(Math.max(0, start - 3), start)) || text.slice(start + m[0].length, start + m[0].length + 2) === '//') continue;
    if (!path.includes('/') && !/\.[A-Za-z0-9]+$/.test(path)) continue;
    if (/^\d+(\.\d+)*$/.test(path)) continue; // a version or a time, "1.2.3:4"
    const line = Number(m[2]);
    if (!line) continue;
    out.push({ start, end: start + m[0].length, path, line, column: m[3] ? Number(m[3]) : undefined });
  }
  return out;
}

/** A link provider over a terminal's buffer: clicking a reference calls open. */
export function fileLinkProvider(term: Terminal, open: (ref: FileRef) => void): ILinkProvider {
  return {
    provideLinks(y: number, callback: (links: ILink[] | undefined) => void) {
      const text = term.buffer.active.getLine(y - 1)?.translateToString(true) ?? '';
      const refs = findFileRefs(text);
      if (refs.length === 0) {
        callback(undefined);
        return;
      }
      callback(
        refs.map((ref) => {
          const start: IBufferCellPosition = { x: ref.start + 1, y };
          const end: IBufferCellPosition = { x: ref.end, y };
          return {
            range: { start, end },
            text: text.slice(ref.start, ref.end),
            decorations: { underline: true, pointerCursor: true },
            activate: (ev: MouseEvent) => {
              ev.preventDefault();
              open(ref);
            },
          };
        }),
      );
    },
  };
}
