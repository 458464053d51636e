/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// The Go binary embeds dist/ (see embed.go). Vite empties it on every build,
// so the committed dist/.keep (needed for a fresh clone to compile) is
// restored by the "build" script.
export default defineConfig({
  plugins: [svelte()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One webview, no CDN: keep the bundle self-contained.
    assetsInlineLimit: 0,
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
  },
  // Component tests mount Svelte components in happy-dom: they need
  // Svelte's browser build (the default resolution picks the server one).
  resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
  test: {
    environment: 'node',
    include: ['src/**/*.test.ts'],
  },
});
