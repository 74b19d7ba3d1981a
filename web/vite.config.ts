import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard, built to web/dist and served by the API process at `/` (src/http/web-app.ts).
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The page's CSP allows no inline script: keep every script in a file under /assets.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 2000,
  },
  server: {
    // `npx vite web` during development: API calls go to a server on :3000.
    proxy: { '/api': 'http://127.0.0.1:3000', '/v1': 'http://127.0.0.1:3000' },
  },
});
