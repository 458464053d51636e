// The window's keyboard shortcuts, in one list: what each key does, how it
// is written, and where it applies. The command palette shows these labels
// next to its actions; the pane's hint line and the buttons' titles use them.
//
// Reserved ("app") shortcuts belong to the window wherever the focus is: a
// terminal (xterm), the live page of a browser tab and the editor
// (CodeMirror) never see them. installShortcuts catches them in the capture
// phase at the window, before any of those, as VS Code reserves its panel
// keys. "browser" shortcuts apply inside a browser tab (its address bar,
// toolbar or page) and are not sent to the page either.

/** What a shortcut is for. */
export type ShortcutId =
  | 'palette'
  | 'drawer'
  | 'newBrowserTab'
  | 'closeTab'
  | 'split'
  | 'settings'
  | 'focusAddress'
  | 'reload'
  | 'back'
  | 'forward';

/** Where a shortcut applies: the whole window, or inside a browser tab. */
export type ShortcutScope = 'app' | 'browser';

/** A key chord: Ctrl means Ctrl, or Cmd on macOS. */
export interface Chord {
  /** KeyboardEvent.key, lower case for letters ("j", ",", "\\", "f5", "arrowleft"). */
  key: string;
  ctrl?: boolean;
  shift?: boolean;
  alt?: boolean;
}

/** One shortcut of the window. */
export interface Shortcut {
  id: ShortcutId;
  /** What it does, as a person says it. */
  label: string;
  scope: ShortcutScope;
  chord: Chord;
  /** How it is written ("Ctrl+Shift+P"). */
  keys: string;
}

const KEY_NAMES: Record<string, string> = { arrowleft: '←', arrowright: '→', arrowup: '↑', arrowdown: '↓', f5: 'F5' };

const def = (id: ShortcutId, label: string, scope: ShortcutScope, chord: Chord): Shortcut => ({ id, label, scope, chord, keys: chordText(chord) });

/** Every shortcut of the window. */
export const SHORTCUTS: readonly Shortcut[] = Object.freeze([
  def('palette', 'Show all commands', 'app', { key: 'p', ctrl: true, shift: true }),
  def('drawer', 'Toggle the drawer', 'app', { key: 'j', ctrl: true }),
  def('newBrowserTab', 'New browser tab', 'app', { key: 't', ctrl: true }),
  def('closeTab', 'Close the focused tab', 'app', { key: 'w', ctrl: true }),
  def('split', 'Split the workspace', 'app', { key: '\\', ctrl: true }),
  def('settings', 'Open or close Settings', 'app', { key: ',', ctrl: true }),
  def('focusAddress', 'Focus the address bar', 'browser', { key: 'l', ctrl: true }),
  def('reload', 'Reload the page', 'browser', { key: 'f5' }),
  def('back', 'Go back', 'browser', { key: 'arrowleft', alt: true }),
  def('forward', 'Go forward', 'browser', { key: 'arrowright', alt: true }),
]);

/** How a chord is written: "Ctrl+Shift+P", "Alt+←", "F5". */
export function chordText(c: Chord): string {
  const parts: string[] = [];
  if (c.ctrl) parts.push('Ctrl');
  if (c.alt) parts.push('Alt');
  if (c.shift) parts.push('Shift');
  parts.push(KEY_NAMES[c.key] ?? (c.key.length === 1 ? c.key.toUpperCase() : c.key));
  return parts.join('+');
}

/** The keys of a shortcut as written ("Ctrl+J"). */
export function shortcutKeys(id: ShortcutId): string {
  return SHORTCUTS.find((s) => s.id === id)?.keys ?? '';
}

/** The modifier and key fields of a keyboard event that matching reads. */
export type KeyLike = Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>;

/** Whether an event is a chord (Cmd counts as Ctrl). */
export function matches(e: KeyLike, c: Chord): boolean {
  if (!e.key) return false;
  const mod = e.ctrlKey || e.metaKey;
  return e.key.toLowerCase() === c.key && mod === !!c.ctrl && e.altKey === !!c.alt && e.shiftKey === !!c.shift;
}

/** The shortcut of a scope that an event is, if any. */
export function matchShortcut(e: KeyLike, scope: ShortcutScope): Shortcut | undefined {
  return SHORTCUTS.find((s) => s.scope === scope && matches(e, s.chord));
}

/** Whether a key belongs to the window (never to a terminal, page or editor). */
export function isReservedKey(e: KeyLike): boolean {
  return matchShortcut(e, 'app') !== undefined;
}

/**
 * Catches the reserved shortcuts at target in the capture phase (before a
 * focused terminal, page or editor sees them) and runs handle with the
 * shortcut's id; while enabled() is false (a modal owns the keyboard) the
 * keys are left alone. Returns the remover.
 */
export function installShortcuts(target: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>, handle: (id: ShortcutId) => void, enabled: () => boolean = () => true): () => void {
  const onKeydown = (ev: Event) => {
    const e = ev as KeyboardEvent;
    if (e.isComposing || e.repeat) {
      // A held key repeats: swallow it so the page or shell does not get it either.
      if (e.repeat && isReservedKey(e) && enabled()) {
        e.preventDefault();
        e.stopPropagation();
      }
      return;
    }
    const s = matchShortcut(e, 'app');
    if (!s || !enabled()) return;
    e.preventDefault();
    e.stopPropagation();
    handle(s.id);
  };
  target.addEventListener('keydown', onKeydown, true);
  return () => target.removeEventListener('keydown', onKeydown, true);
}
