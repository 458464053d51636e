// The language of a file, by name, and its CodeMirror support, loaded on
// first use with a dynamic import (each pack is its own chunk: the window
// does not pay for Python until a .py file opens).
//
// Svelte files use the HTML support: it highlights the markup and the
// <script lang="ts"> and <style> blocks; the `{#if}` blocks read as text.
// (The community Svelte package has had no release in two years: see
// docs/decisions/2026-12-01-editor-codemirror.md.)
import { StreamLanguage, type StreamParser } from '@codemirror/language';
import type { Extension } from '@codemirror/state';

/** The languages the editor highlights. */
export type LanguageId =
  | 'typescript'
  | 'tsx'
  | 'javascript'
  | 'jsx'
  | 'html'
  | 'svelte'
  | 'css'
  | 'json'
  | 'yaml'
  | 'markdown'
  | 'python'
  | 'rust'
  | 'sql'
  | 'go'
  | 'shell'
  | 'toml'
  | 'dockerfile';

const BY_EXTENSION: Record<string, LanguageId> = {
  ts: 'typescript', mts: 'typescript', cts: 'typescript', tsx: 'tsx',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'jsx',
  html: 'html', htm: 'html', svelte: 'svelte', vue: 'html',
  css: 'css', scss: 'css', less: 'css',
  json: 'json', jsonc: 'json', webmanifest: 'json',
  yaml: 'yaml', yml: 'yaml',
  md: 'markdown', markdown: 'markdown',
  py: 'python', pyi: 'python',
  rs: 'rust',
  sql: 'sql',
  go: 'go',
  sh: 'shell', bash: 'shell', zsh: 'shell',
  toml: 'toml',
  dockerfile: 'dockerfile',
};

const BY_NAME: Record<string, LanguageId> = {
  dockerfile: 'dockerfile', containerfile: 'dockerfile',
  '.bashrc': 'shell', '.zshrc': 'shell', '.profile': 'shell', '.bash_profile': 'shell',
  'cargo.lock': 'toml', 'go.mod': 'go', 'go.work': 'go',
};

/** The language of a file by its name, or null for plain text. */
export function languageOf(path: string): LanguageId | null {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (BY_NAME[name]) return BY_NAME[name];
  if (name.startsWith('dockerfile.') || name.endsWith('.dockerfile')) return 'dockerfile';
  const dot = name.lastIndexOf('.');
  if (dot <= 0 && !name.startsWith('.')) return null;
  return BY_EXTENSION[name.slice(dot + 1)] ?? null;
}

/** A short label for the status line. */
export const LANGUAGE_LABELS: Record<LanguageId, string> = {
  typescript: 'TypeScript', tsx: 'TSX', javascript: 'JavaScript', jsx: 'JSX', html: 'HTML', svelte: 'Svelte', css: 'CSS',
  json: 'JSON', yaml: 'YAML', markdown: 'Markdown', python: 'Python', rust: 'Rust', sql: 'SQL', go: 'Go', shell: 'Shell',
  toml: 'TOML', dockerfile: 'Dockerfile',
};

async function legacy(load: () => Promise<StreamParser<unknown>>): Promise<Extension> {
  return StreamLanguage.define(await load());
}

const LOADERS: Record<LanguageId, () => Promise<Extension>> = {
  typescript: async () => (await import('@codemirror/lang-javascript')).javascript({ typescript: true }),
  tsx: async () => (await import('@codemirror/lang-javascript')).javascript({ typescript: true, jsx: true }),
  javascript: async () => (await import('@codemirror/lang-javascript')).javascript(),
  jsx: async () => (await import('@codemirror/lang-javascript')).javascript({ jsx: true }),
  html: async () => (await import('@codemirror/lang-html')).html(),
  svelte: async () => (await import('@codemirror/lang-html')).html({ selfClosingTags: true }),
  css: async () => (await import('@codemirror/lang-css')).css(),
  json: async () => (await import('@codemirror/lang-json')).json(),
  yaml: async () => (await import('@codemirror/lang-yaml')).yaml(),
  markdown: async () => (await import('@codemirror/lang-markdown')).markdown(),
  python: async () => (await import('@codemirror/lang-python')).python(),
  rust: async () => (await import('@codemirror/lang-rust')).rust(),
  sql: async () => (await import('@codemirror/lang-sql')).sql(),
  go: async () => (await import('@codemirror/lang-go')).go(),
  shell: () => legacy(async () => (await import('@codemirror/legacy-modes/mode/shell')).shell),
  toml: () => legacy(async () => (await import('@codemirror/legacy-modes/mode/toml')).toml),
  dockerfile: () => legacy(async () => (await import('@codemirror/legacy-modes/mode/dockerfile')).dockerFile),
};

const loaded = new Map<LanguageId, Promise<Extension>>();

/** The language support of a file (loaded once per language), or null for plain text. */
export function loadLanguage(path: string): Promise<Extension> | null {
  const id = languageOf(path);
  if (!id) return null;
  let p = loaded.get(id);
  if (!p) {
    p = LOADERS[id]();
    // A chunk that failed to load is tried again next time.
    p.catch(() => loaded.delete(id));
    loaded.set(id, p);
  }
  return p;
}
