// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { SHORTCUTS, chordText, installShortcuts, isReservedKey, matchShortcut, shortcutKeys } from './shortcuts';

const key = (key: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey', boolean>> = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});

describe('shortcut registry', () => {
  it('lists every shortcut once, each with a label and its keys', () => {
    expect(SHORTCUTS.map((s) => [s.id, s.keys])).toEqual([
      ['palette', 'Ctrl+Shift+P'],
      ['drawer', 'Ctrl+J'],
      ['newBrowserTab', 'Ctrl+T'],
      ['closeTab', 'Ctrl+W'],
      ['split', 'Ctrl+\\'],
      ['settings', 'Ctrl+,'],
      ['focusAddress', 'Ctrl+L'],
      ['reload', 'F5'],
      ['back', 'Alt+←'],
      ['forward', 'Alt+→'],
    ]);
    for (const s of SHORTCUTS) expect(s.label.length).toBeGreaterThan(3);
    expect(new Set(SHORTCUTS.map((s) => s.id)).size).toBe(SHORTCUTS.length);
    expect(shortcutKeys('drawer')).toBe('Ctrl+J');
    expect(chordText({ key: 'arrowright', alt: true })).toBe('Alt+→');
  });

  it.each([
    [key('j', { ctrlKey: true }), 'drawer'],
    [key('J', { metaKey: true }), 'drawer'],
    [key('P', { ctrlKey: true, shiftKey: true }), 'palette'],
    [key('t', { ctrlKey: true }), 'newBrowserTab'],
    [key('w', { ctrlKey: true }), 'closeTab'],
    [key('\\', { ctrlKey: true }), 'split'],
    [key(',', { ctrlKey: true }), 'settings'],
    [key('p', { ctrlKey: true }), undefined], // the editor's quick open
    [key('j', { ctrlKey: true, altKey: true }), undefined],
    [key('c', { ctrlKey: true }), undefined], // the shell's interrupt
    [key('l', { ctrlKey: true }), undefined], // a browser-tab key, not the window's
    [key('j'), undefined],
  ])('reserved key %o → %s', (e, want) => {
    expect(matchShortcut(e, 'app')?.id).toBe(want);
    expect(isReservedKey(e)).toBe(want !== undefined);
  });

  it.each([
    [key('l', { ctrlKey: true }), 'focusAddress'],
    [key('F5'), 'reload'],
    [key('ArrowLeft', { altKey: true }), 'back'],
    [key('ArrowRight', { altKey: true }), 'forward'],
    [key('ArrowLeft'), undefined],
    [key('F5', { shiftKey: true }), undefined],
  ])('browser-tab key %o → %s', (e, want) => {
    expect(matchShortcut(e, 'browser')?.id).toBe(want);
  });
});

describe('installShortcuts', () => {
  // A stand-in for xterm or CodeMirror: it handles every key itself and stops it there.
  function greedyInput() {
    const el = document.createElement('textarea');
    const seen: string[] = [];
    el.addEventListener('keydown', (e) => {
      seen.push(e.key);
      e.preventDefault();
      e.stopPropagation();
    });
    document.body.append(el);
    return { el, seen };
  }

  it('runs a reserved shortcut although the focused element stops the key, and keeps the key from it', () => {
    const { el, seen } = greedyInput();
    const ran: string[] = [];
    const remove = installShortcuts(window, (id) => ran.push(id));
    el.dispatchEvent(new KeyboardEvent('keydown', { key: 'j', ctrlKey: true, bubbles: true, cancelable: true }));
    el.dispatchEvent(new KeyboardEvent('keydown', { key: 'P', ctrlKey: true, shiftKey: true, bubbles: true, cancelable: true }));
    el.dispatchEvent(new KeyboardEvent('keydown', { key: 'c', ctrlKey: true, bubbles: true, cancelable: true }));
    expect(ran).toEqual(['drawer', 'palette']);
    expect(seen).toEqual(['c']); // Ctrl+C still reaches the shell
    remove();
    el.dispatchEvent(new KeyboardEvent('keydown', { key: 'j', ctrlKey: true, bubbles: true, cancelable: true }));
    expect(ran).toEqual(['drawer', 'palette']);
    el.remove();
  });

  it('leaves the keys alone while a modal owns the keyboard', () => {
    const { el, seen } = greedyInput();
    const handle = vi.fn();
    const remove = installShortcuts(window, handle, () => false);
    el.dispatchEvent(new KeyboardEvent('keydown', { key: 'w', ctrlKey: true, bubbles: true, cancelable: true }));
    expect(handle).not.toHaveBeenCalled();
    expect(seen).toEqual(['w']);
    remove();
    el.remove();
  });
});
