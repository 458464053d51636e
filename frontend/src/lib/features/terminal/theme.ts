// The terminal's colors, from the app's CSS variables (light or dark, as
// the system is), plus an ANSI palette that reads well on each.

import type { ITheme } from '@xterm/xterm';

const LIGHT_ANSI = {
  black: '#1b1f27', red: '#c62828', green: '#2e7d32', yellow: '#8d6e00', blue: '#1f5fbf', magenta: '#8e24aa', cyan: '#00838f', white: '#9aa0ab',
  brightBlack: '#5f6778', brightRed: '#e53935', brightGreen: '#43a047', brightYellow: '#b08800', brightBlue: '#1f6fd1', brightMagenta: '#ab47bc',
  brightCyan: '#0097a7', brightWhite: '#d9dde5',
};

const DARK_ANSI = {
  black: '#262c38', red: '#f87171', green: '#4ade80', yellow: '#fbbf24', blue: '#7cc4ff', magenta: '#d8a4f7', cyan: '#67e8f9', white: '#c9ced9',
  brightBlack: '#8b93a7', brightRed: '#fca5a5', brightGreen: '#86efac', brightYellow: '#fde68a', brightBlue: '#bae0ff', brightMagenta: '#ecc8ff',
  brightCyan: '#a5f3fc', brightWhite: '#ffffff',
};

/** #rgb or #rrggbb with an alpha (0–1) as #rrggbbaa; anything else as it is. */
export function withAlpha(color: string, alpha: number): string {
  let hex = color.trim();
  if (/^#[0-9a-f]{3}$/i.test(hex)) hex = '#' + [...hex.slice(1)].map((c) => c + c).join('');
  if (!/^#[0-9a-f]{6}$/i.test(hex)) return color;
  const a = Math.round(Math.min(1, Math.max(0, alpha)) * 255);
  return hex + a.toString(16).padStart(2, '0');
}

/** The terminal theme for the app's current colors. */
export function terminalTheme(read: (name: string) => string, dark: boolean): ITheme {
  const v = (name: string, fallback: string) => read(name).trim() || fallback;
  const bg = v('--panel', dark ? '#161a22' : '#ffffff');
  const fg = v('--fg', dark ? '#e6e8ee' : '#1b1f27');
  const accent = v('--accent', dark ? '#7cc4ff' : '#1f6fd1');
  return {
    background: bg,
    foreground: fg,
    cursor: accent,
    cursorAccent: bg,
    selectionBackground: withAlpha(accent, dark ? 0.35 : 0.25),
    ...(dark ? DARK_ANSI : LIGHT_ANSI),
  };
}

/** The theme from the document's CSS variables now. */
export function documentTheme(): ITheme {
  const cs = getComputedStyle(document.documentElement);
  const dark = globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;
  return terminalTheme((n) => cs.getPropertyValue(n), dark);
}
