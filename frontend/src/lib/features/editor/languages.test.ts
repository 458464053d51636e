import { EditorState } from '@codemirror/state';
import { language } from '@codemirror/language';
import { describe, expect, it } from 'vitest';
import { LANGUAGE_LABELS, languageOf, loadLanguage } from './languages';

// The language packs of issue 15: Go, TS/JS/JSX, Svelte/HTML, CSS, JSON,
// YAML, Markdown, Python, Rust, shell, TOML, SQL, Dockerfile.
describe('the editor languages', () => {
  it.each([
    ['main.go', 'go'],
    ['go.mod', 'go'],
    ['src/app.ts', 'typescript'],
    ['src/App.tsx', 'tsx'],
    ['lib/x.mjs', 'javascript'],
    ['ui/View.jsx', 'jsx'],
    ['App.svelte', 'svelte'],
    ['index.html', 'html'],
    ['styles/app.css', 'css'],
    ['package.json', 'json'],
    ['.github/workflows/ci.yml', 'yaml'],
    ['README.md', 'markdown'],
    ['tool.py', 'python'],
    ['src/lib.rs', 'rust'],
    ['scripts/setup.sh', 'shell'],
    ['.bashrc', 'shell'],
    ['Cargo.toml', 'toml'],
    ['db/schema.sql', 'sql'],
    ['Dockerfile', 'dockerfile'],
    ['build/Dockerfile.dev', 'dockerfile'],
    ['app.dockerfile', 'dockerfile'],
  ])('%s is %s', (path, want) => {
    expect(languageOf(path)).toBe(want);
  });

  it.each(['LICENSE', 'notes.txt', '.env', 'Makefile'])('%s is plain text', (path) => {
    expect(languageOf(path)).toBeNull();
    expect(loadLanguage(path)).toBeNull();
  });

  it.each(Object.keys(LANGUAGE_LABELS))('the %s pack loads and gives the state a language', async (id) => {
    const sample: Record<string, string> = {
      typescript: 'a.ts', tsx: 'a.tsx', javascript: 'a.js', jsx: 'a.jsx', html: 'a.html', svelte: 'a.svelte', css: 'a.css',
      json: 'a.json', yaml: 'a.yaml', markdown: 'a.md', python: 'a.py', rust: 'a.rs', sql: 'a.sql', go: 'a.go',
      shell: 'a.sh', toml: 'a.toml', dockerfile: 'Dockerfile',
    };
    expect(languageOf(sample[id])).toBe(id);
    const ext = await loadLanguage(sample[id]);
    const state = EditorState.create({ doc: 'x', extensions: ext ?? [] });
    expect(state.facet(language)).not.toBeNull();
  });
});
