// The window never opens the browser engine's own dialogs (alert, confirm,
// prompt): WebKitGTK shows them as "JavaScript - wails://wails/" with OK and
// Cancel. Every question goes through the in-app ConfirmDialog, whose
// confirm is awaited; a bare or window-qualified call is the native one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'generated' ? [] : sources(p);
    return /\.(ts|svelte)$/.test(name) && !/\.test\.ts$/.test(name) ? [p] : [];
  });
}

/** The native dialog calls in text (comments removed), as "line: code". */
export function nativeDialogCalls(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/\/\/.*$/gm, '');
  const found: string[] = [];
  code.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/(^|[^\w.$])((?:window|globalThis|self)\.)?(alert|confirm|prompt)\s*\(/g)) {
      const before = line.slice(0, m.index + m[1].length);
      // The in-app confirm is a function that returns a promise: always awaited.
      if (!m[2] && m[3] === 'confirm' && /\bawait\s+$/.test(before)) continue;
      found.push(`${i + 1}: ${line.trim()}`);
    }
  });
  return found;
}

describe('native dialogs', () => {
  it('finds the native calls and lets the awaited in-app confirm be', () => {
    expect(nativeDialogCalls('if (!confirm(`Discard?`)) return;')).toHaveLength(1);
    expect(nativeDialogCalls('onclick={() => store.restore(id, (q) => confirm(q))}')).toHaveLength(1);
    expect(nativeDialogCalls('window.alert("x"); globalThis.prompt("y")')).toHaveLength(2);
    expect(nativeDialogCalls('if (!(await confirm(`Delete?`))) return;')).toEqual([]);
    expect(nativeDialogCalls('dialogs.confirm({ title }); // confirm(q) in a comment')).toEqual([]);
  });

  it('the window never calls alert, confirm or prompt of the browser engine', () => {
    const root = join(__dirname);
    const hits = sources(root).flatMap((p) => nativeDialogCalls(readFileSync(p, 'utf8')).map((h) => `${p.slice(root.length + 1)}:${h}`));
    expect(hits).toEqual([]);
  });
});
