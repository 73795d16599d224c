/**
 * The console's build: `vite build` → console/dist, served by the API under /console
 * (api/pages/console.ts). Hashed file names under assets/ (cached as immutable), no inline
 * script (the API's Content-Security-Policy allows only 'self').
 */
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
  },
  server: {
    // `npx vite` in console/ for development: API calls go to the running `npm start`.
    proxy: { '/api': 'http://127.0.0.1:3000', '/openapi.json': 'http://127.0.0.1:3000' },
  },
});
