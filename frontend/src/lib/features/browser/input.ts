// Pure helpers of the live browser view: where a frame is drawn in the
// canvas, how a pointer position maps to the page's CSS pixels, and how DOM
// mouse, wheel and keyboard events become backend/browser InputEvents.

import { isReservedKey } from '../../shortcuts';
import type { BrowserInputEvent } from '../../bridge';

/** A rectangle in CSS pixels. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A size in CSS pixels. */
export interface Size {
  width: number;
  height: number;
}

/**
 * Where a page of `page` CSS pixels is drawn in a box of `box` CSS pixels:
 * scaled to fit (aspect kept), anchored at the top left. The page's
 * viewport follows the box, so this is normally the identity.
 */
export function fitRect(box: Size, page: Size): Rect {
  if (page.width <= 0 || page.height <= 0 || box.width <= 0 || box.height <= 0) return { x: 0, y: 0, w: 0, h: 0 };
  const s = Math.min(box.width / page.width, box.height / page.height);
  return { x: 0, y: 0, w: page.width * s, h: page.height * s };
}

/**
 * Maps a point of the canvas (CSS pixels from its top left) to the page's
 * CSS pixels through the rectangle the frame was drawn in; points outside
 * the page are clamped to its edge. Null when nothing is drawn yet.
 */
export function toPagePoint(px: number, py: number, drawn: Rect, page: Size): { x: number; y: number } | null {
  if (drawn.w <= 0 || drawn.h <= 0 || page.width <= 0 || page.height <= 0) return null;
  const clamp = (v: number, max: number) => Math.min(Math.max(v, 0), max);
  const x = clamp(((px - drawn.x) * page.width) / drawn.w, page.width - 1);
  const y = clamp(((py - drawn.y) * page.height) / drawn.h, page.height - 1);
  return { x: Math.round(x * 100) / 100, y: Math.round(y * 100) / 100 };
}

/** The page sizes the engine accepts (CSS pixels a side). */
export const VIEWPORT_LIMITS = { min: 100, max: 8192 } as const;

/**
 * The page viewport for a view of width×height CSS pixels: rounded and kept
 * within VIEWPORT_LIMITS (a smaller pane shows the page scaled down).
 * Null while the view has no size (hidden).
 */
export function viewportFor(width: number, height: number): Size | null {
  if (!(width >= 1 && height >= 1)) return null;
  const c = (v: number) => Math.min(VIEWPORT_LIMITS.max, Math.max(VIEWPORT_LIMITS.min, Math.round(v)));
  return { width: c(width), height: c(height) };
}

/** The modifier keys of a DOM event as the bit field of InputEvent: Alt=1, Ctrl=2, Meta=4, Shift=8. */
export function modifierBits(e: { altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }): number {
  return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
}

/** A DOM MouseEvent.button as the InputEvent button name. */
export function buttonName(button: number): 'left' | 'middle' | 'right' | 'none' {
  return button === 0 ? 'left' : button === 1 ? 'middle' : button === 2 ? 'right' : 'none';
}

/** How long and how far apart presses still count as one multi-click (a double click). */
export const MULTI_CLICK = { ms: 500, px: 4 } as const;

/** Counts successive presses of one button at one place: 1, 2 for a double click, 3 … */
export class ClickCounter {
  private last: { t: number; x: number; y: number; button: number; count: number } | null = null;

  press(t: number, x: number, y: number, button: number): number {
    const l = this.last;
    const again = l !== null && l.button === button && t - l.t <= MULTI_CLICK.ms && Math.abs(x - l.x) <= MULTI_CLICK.px && Math.abs(y - l.y) <= MULTI_CLICK.px;
    const count = again ? l.count + 1 : 1;
    this.last = { t, x, y, button, count };
    return count;
  }

  /** The count of the press a release belongs to. */
  get current(): number {
    return this.last?.count ?? 1;
  }
}

/** A mouse InputEvent at a page point. */
export function mouseEvent(
  type: 'mousePressed' | 'mouseReleased' | 'mouseMoved',
  at: { x: number; y: number },
  e: { button: number; buttons: number; altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean },
  clickCount = 0,
): BrowserInputEvent {
  const ev: BrowserInputEvent = {
    kind: 'mouse',
    type,
    x: at.x,
    y: at.y,
    button: type === 'mouseMoved' ? 'none' : buttonName(e.button),
    buttons: e.buttons,
    modifiers: modifierBits(e),
  };
  if (type !== 'mouseMoved') ev.clickCount = clickCount;
  return ev;
}

/** Pixels of one wheel "line" (WheelEvent.deltaMode 1), as Chromium scrolls them. */
export const WHEEL_LINE_PX = 40;

/** A WheelEvent's deltas in CSS pixels (lines and pages converted; pages by the page's height). */
export function wheelDeltas(e: { deltaX: number; deltaY: number; deltaMode: number }, pageHeight: number): { deltaX: number; deltaY: number } {
  const f = e.deltaMode === 1 ? WHEEL_LINE_PX : e.deltaMode === 2 ? Math.max(pageHeight, 1) : 1;
  return { deltaX: e.deltaX * f, deltaY: e.deltaY * f };
}

/** Windows virtual key codes of the named keys (what Chromium wants as windowsVirtualKeyCode). */
const NAMED_KEY_CODES: Record<string, number> = {
  Backspace: 8, Tab: 9, Enter: 13, Shift: 16, Control: 17, Alt: 18, Pause: 19, CapsLock: 20, Escape: 27, ' ': 32,
  PageUp: 33, PageDown: 34, End: 35, Home: 36, ArrowLeft: 37, ArrowUp: 38, ArrowRight: 39, ArrowDown: 40,
  Insert: 45, Delete: 46, Meta: 91, ContextMenu: 93,
  F1: 112, F2: 113, F3: 114, F4: 115, F5: 116, F6: 117, F7: 118, F8: 119, F9: 120, F10: 121, F11: 122, F12: 123,
};
const CODE_KEY_CODES: Record<string, number> = {
  Semicolon: 186, Equal: 187, Comma: 188, Minus: 189, Period: 190, Slash: 191, Backquote: 192,
  BracketLeft: 219, Backslash: 220, BracketRight: 221, Quote: 222, Space: 32,
};

/** The Windows virtual key code of a key, from keyCode when the event has one, else from code and key. */
export function virtualKeyCode(e: { key: string; code: string; keyCode?: number }): number {
  if (e.keyCode) return e.keyCode;
  const m = /^(?:Key([A-Z])|Digit([0-9])|Numpad([0-9]))$/.exec(e.code);
  if (m) return m[1] ? m[1].charCodeAt(0) : m[2] ? m[2].charCodeAt(0) : 96 + Number(m[3]);
  if (NAMED_KEY_CODES[e.key] !== undefined) return NAMED_KEY_CODES[e.key];
  if (CODE_KEY_CODES[e.code] !== undefined) return CODE_KEY_CODES[e.code];
  if (e.key.length === 1) {
    const c = e.key.toUpperCase();
    if (/^[A-Z0-9]$/.test(c)) return c.charCodeAt(0);
  }
  return 0;
}

/**
 * What a key inserts: its character for a printable key without Ctrl or
 * Meta, "\r" for Enter; '' otherwise.
 */
export function keyText(e: { key: string; ctrlKey: boolean; metaKey: boolean }): string {
  if (e.ctrlKey || e.metaKey) return '';
  if (e.key === 'Enter') return '\r';
  return [...e.key].length === 1 ? e.key : '';
}

/** A key InputEvent of a DOM KeyboardEvent. */
export function keyEvent(
  type: 'keyDown' | 'keyUp',
  e: { key: string; code: string; keyCode?: number; altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean },
): BrowserInputEvent {
  const ev: BrowserInputEvent = {
    kind: 'key',
    type,
    key: e.key,
    code: e.code,
    keyCode: virtualKeyCode(e),
    modifiers: modifierBits(e),
  };
  if (type === 'keyDown') {
    const text = keyText(e);
    if (text) ev.text = text;
  }
  return ev;
}

/**
 * Whether a key is one of meith's reserved shortcuts (the registry in
 * src/lib/shortcuts.ts: Ctrl or Cmd + T, J, W, ",", "\\", Ctrl+Shift+P),
 * which go to the app instead of the page.
 */
export function isAppShortcut(e: { key: string; altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }): boolean {
  return isReservedKey(e);
}

/** Whether a key is the paste shortcut (the paste event then brings the text). */
export function isPasteShortcut(e: { key: string; altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }): boolean {
  return (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'v';
}

/** Whether a URL is served over TLS (the address bar's lock). */
export function isSecure(url: string): boolean {
  return /^(https|wss):\/\//i.test(url);
}

/** What the address bar shows for a URL: nothing for a blank page. */
export function displayURL(url: string): string {
  return url === 'about:blank' ? '' : url;
}

/** Whether a favicon URL may be shown in the window (http(s) or an image data: URL). */
export function usableFavicon(url: string | undefined): url is string {
  return !!url && (/^https?:\/\//i.test(url) || /^data:image\//i.test(url));
}
