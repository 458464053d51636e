import { describe, expect, it } from 'vitest';
import {
  ClickCounter,
  MULTI_CLICK,
  displayURL,
  fitRect,
  isAppShortcut,
  isPasteShortcut,
  isSecure,
  keyEvent,
  keyText,
  modifierBits,
  mouseEvent,
  toPagePoint,
  usableFavicon,
  viewportFor,
  virtualKeyCode,
  wheelDeltas,
  WHEEL_LINE_PX,
} from './input';

const mods = { altKey: false, ctrlKey: false, metaKey: false, shiftKey: false };

describe('fitRect and toPagePoint', () => {
  it.each([
    // box, page → drawn rect
    [{ width: 1280, height: 800 }, { width: 1280, height: 800 }, { x: 0, y: 0, w: 1280, h: 800 }], // the usual 1:1
    [{ width: 640, height: 800 }, { width: 1280, height: 800 }, { x: 0, y: 0, w: 640, h: 400 }], // pane narrower than the page: scaled down
    [{ width: 1000, height: 300 }, { width: 500, height: 500 }, { x: 0, y: 0, w: 300, h: 300 }], // limited by height
    [{ width: 1000, height: 800 }, { width: 0, height: 0 }, { x: 0, y: 0, w: 0, h: 0 }], // no frame yet
  ])('fits a page of %o into %o', (box, page, want) => {
    expect(fitRect(box, page)).toEqual(want);
  });

  it.each([
    // canvas point, drawn rect, page → page point
    [[100, 50], { x: 0, y: 0, w: 1280, h: 800 }, { width: 1280, height: 800 }, { x: 100, y: 50 }],
    [[100, 50], { x: 0, y: 0, w: 640, h: 400 }, { width: 1280, height: 800 }, { x: 200, y: 100 }], // half size
    [[15.5, 7.25], { x: 0, y: 0, w: 300, h: 300 }, { width: 500, height: 500 }, { x: 25.83, y: 12.08 }], // rounded to 1/100
    [[-20, 900], { x: 0, y: 0, w: 1280, h: 800 }, { width: 1280, height: 800 }, { x: 0, y: 799 }], // clamped to the page
    [[700, 10], { x: 0, y: 0, w: 640, h: 400 }, { width: 1280, height: 800 }, { x: 1279, y: 20 }], // right of the drawn page
  ])('maps canvas %o through %o of %o', ([px, py], drawn, page, want) => {
    expect(toPagePoint(px, py, drawn, page)).toEqual(want);
  });

  it('sizes the page viewport after the view, within the engine\'s limits', () => {
    expect(viewportFor(1280.4, 799.6)).toEqual({ width: 1280, height: 800 });
    expect(viewportFor(60, 500)).toEqual({ width: 100, height: 500 }); // a narrow pane: drawn scaled down
    expect(viewportFor(10000, 9000)).toEqual({ width: 8192, height: 8192 });
    expect(viewportFor(0, 500)).toBeNull(); // hidden
  });

  it('maps nothing before a frame was drawn', () => {
    expect(toPagePoint(10, 10, { x: 0, y: 0, w: 0, h: 0 }, { width: 1280, height: 800 })).toBeNull();
  });
});

describe('modifiers, buttons and clicks', () => {
  it.each([
    [{}, 0],
    [{ altKey: true }, 1],
    [{ ctrlKey: true }, 2],
    [{ metaKey: true }, 4],
    [{ shiftKey: true }, 8],
    [{ ctrlKey: true, shiftKey: true }, 10],
    [{ altKey: true, ctrlKey: true, metaKey: true, shiftKey: true }, 15],
  ])('modifier bits of %o are %i', (m, want) => {
    expect(modifierBits({ ...mods, ...m })).toBe(want);
  });

  it('builds press, release and move events', () => {
    const at = { x: 12, y: 34 };
    expect(mouseEvent('mousePressed', at, { ...mods, button: 0, buttons: 1 }, 2)).toEqual({
      kind: 'mouse', type: 'mousePressed', x: 12, y: 34, button: 'left', buttons: 1, modifiers: 0, clickCount: 2,
    });
    expect(mouseEvent('mouseReleased', at, { ...mods, shiftKey: true, button: 2, buttons: 0 }, 1)).toMatchObject({
      button: 'right', buttons: 0, modifiers: 8, clickCount: 1,
    });
    const move = mouseEvent('mouseMoved', at, { ...mods, button: 0, buttons: 1 });
    expect(move).toEqual({ kind: 'mouse', type: 'mouseMoved', x: 12, y: 34, button: 'none', buttons: 1, modifiers: 0 }); // a drag
    expect(mouseEvent('mousePressed', at, { ...mods, button: 1, buttons: 4 }, 1).button).toBe('middle');
  });

  it('counts a double and a triple click, and starts over when slow, far or another button', () => {
    const c = new ClickCounter();
    expect(c.press(0, 10, 10, 0)).toBe(1);
    expect(c.press(200, 11, 10, 0)).toBe(2);
    expect(c.current).toBe(2);
    expect(c.press(400, 11, 12, 0)).toBe(3);
    expect(c.press(400 + MULTI_CLICK.ms + 1, 11, 12, 0)).toBe(1); // too slow
    expect(c.press(1000, 11 + MULTI_CLICK.px + 1, 12, 0)).toBe(1); // too far
    expect(c.press(1100, 11 + MULTI_CLICK.px + 1, 12, 2)).toBe(1); // another button
  });

  it('converts wheel lines and pages to CSS pixels', () => {
    expect(wheelDeltas({ deltaX: 3, deltaY: -120, deltaMode: 0 }, 800)).toEqual({ deltaX: 3, deltaY: -120 });
    expect(wheelDeltas({ deltaX: 0, deltaY: 3, deltaMode: 1 }, 800)).toEqual({ deltaX: 0, deltaY: 3 * WHEEL_LINE_PX });
    expect(wheelDeltas({ deltaX: 0, deltaY: 1, deltaMode: 2 }, 800)).toEqual({ deltaX: 0, deltaY: 800 });
  });
});

describe('keys', () => {
  it.each([
    // event → key event fields
    [{ key: 'a', code: 'KeyA', keyCode: 65 }, 'keyDown', { key: 'a', code: 'KeyA', keyCode: 65, modifiers: 0, text: 'a' }],
    [{ key: 'A', code: 'KeyA', shiftKey: true }, 'keyDown', { key: 'A', keyCode: 65, modifiers: 8, text: 'A' }],
    [{ key: 'a', code: 'KeyA' }, 'keyUp', { key: 'a', keyCode: 65, modifiers: 0 }], // no text on keyUp
    [{ key: 'Enter', code: 'Enter' }, 'keyDown', { key: 'Enter', keyCode: 13, text: '\r' }],
    [{ key: 'Backspace', code: 'Backspace' }, 'keyDown', { key: 'Backspace', keyCode: 8 }],
    [{ key: 'ArrowDown', code: 'ArrowDown' }, 'keyDown', { keyCode: 40 }],
    [{ key: ' ', code: 'Space' }, 'keyDown', { keyCode: 32, text: ' ' }],
    [{ key: 'a', code: 'KeyA', ctrlKey: true }, 'keyDown', { keyCode: 65, modifiers: 2 }], // Ctrl+A inserts nothing
    [{ key: '7', code: 'Digit7' }, 'keyDown', { keyCode: 55, text: '7' }],
    [{ key: '5', code: 'Numpad5' }, 'keyDown', { keyCode: 101, text: '5' }],
    [{ key: ';', code: 'Semicolon' }, 'keyDown', { keyCode: 186, text: ';' }],
    [{ key: 'é', code: 'KeyE', altKey: true }, 'keyDown', { keyCode: 69, modifiers: 1, text: 'é' }],
    [{ key: 'Tab', code: 'Tab' }, 'keyDown', { keyCode: 9 }],
  ] as const)('%o %s', (e, type, want) => {
    const ev = keyEvent(type, { ...mods, ...e });
    expect(ev).toMatchObject({ kind: 'key', type, ...want });
    if (!('text' in want)) expect(ev.text).toBeUndefined();
  });

  it('finds key codes without keyCode and texts of printable keys only', () => {
    expect(virtualKeyCode({ key: 'z', code: 'KeyZ' })).toBe(90);
    expect(virtualKeyCode({ key: 'Escape', code: 'Escape' })).toBe(27);
    expect(virtualKeyCode({ key: 'Unidentified', code: '' })).toBe(0);
    expect(keyText({ key: 'Shift', ctrlKey: false, metaKey: false })).toBe('');
    expect(keyText({ key: '😀', ctrlKey: false, metaKey: false })).toBe('😀');
    expect(keyText({ key: 'v', ctrlKey: false, metaKey: true })).toBe('');
  });

  it.each([
    [{ key: 't', ctrlKey: true }, true],
    [{ key: 'T', metaKey: true }, true],
    [{ key: 'j', ctrlKey: true }, true],
    [{ key: 'w', ctrlKey: true }, true],
    [{ key: ',', ctrlKey: true }, true],
    [{ key: '\\', ctrlKey: true }, true],
    [{ key: 't' }, false], // plain typing goes to the page
    [{ key: 'a', ctrlKey: true }, false], // select all in the page
    [{ key: 't', ctrlKey: true, shiftKey: true }, false],
    [{ key: 'w', ctrlKey: true, altKey: true }, false],
  ])('app shortcut %o: %s', (e, want) => {
    expect(isAppShortcut({ ...mods, ...e })).toBe(want);
  });

  it('knows the paste shortcut', () => {
    expect(isPasteShortcut({ ...mods, key: 'v', ctrlKey: true })).toBe(true);
    expect(isPasteShortcut({ ...mods, key: 'V', metaKey: true, shiftKey: true })).toBe(true);
    expect(isPasteShortcut({ ...mods, key: 'v' })).toBe(false);
  });
});

describe('address and icon helpers', () => {
  it('locks https only, hides about:blank, accepts http(s) and data: image favicons', () => {
    expect(isSecure('https://example.com/')).toBe(true);
    expect(isSecure('http://localhost:3000/')).toBe(false);
    expect(displayURL('about:blank')).toBe('');
    expect(displayURL('https://example.com/')).toBe('https://example.com/');
    expect(usableFavicon('https://example.com/favicon.ico')).toBe(true);
    expect(usableFavicon('data:image/png;base64,AAAA')).toBe(true);
    expect(usableFavicon('javascript:alert(1)')).toBe(false);
    expect(usableFavicon('file:///etc/passwd')).toBe(false);
    expect(usableFavicon(undefined)).toBe(false);
  });
});
