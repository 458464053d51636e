import { describe, expect, it } from 'vitest';

// lib/bridge is the only module allowed to touch Wails (window.go,
// window.runtime, generated wailsjs/ bindings). This keeps it that way.
const sources = import.meta.glob<string>('/src/**/*.{ts,svelte}', { query: '?raw', import: 'default', eager: true });

describe('bridge boundary', () => {
  it('finds the sources', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(5);
  });

  it('nothing outside src/lib/bridge/ touches Wails', () => {
    const offenders = Object.entries(sources)
      .filter(([path]) => !path.startsWith('/src/lib/bridge/'))
      .filter(([, text]) => /wailsjs|window\.go\b|window\.runtime\b|\bEventsOn\b|globalThis\.go\b/.test(text))
      .map(([path]) => path);
    expect(offenders).toEqual([]);
  });

  it('lib/bridge is transport only: it calls no tool by name', () => {
    const offenders = Object.entries(sources)
      .filter(([path]) => path.startsWith('/src/lib/bridge/') && !/\.test\.ts$|\/testing\.ts$/.test(path))
      .filter(([, text]) => /\bcall(<[^(]*>)?\(\s*['"`]/.test(text))
      .map(([path]) => path);
    expect(offenders).toEqual([]);
  });
});
