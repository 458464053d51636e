// Builds the editor benchmark's page (bench/editor/index.html + main.ts) with
// the frontend's own toolchain; bench/editor.sh links frontend/node_modules
// here first, so that the page's imports resolve to the app's packages.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  plugins: [svelte({ configFile: fileURLToPath(new URL('../../frontend/svelte.config.js', import.meta.url)) })],
  build: { outDir: process.env.MEITH_BENCH_OUT, emptyOutDir: true, target: 'es2022', assetsInlineLimit: 0 },
  logLevel: 'warn',
});
