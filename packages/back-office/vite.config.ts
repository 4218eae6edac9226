import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * Static files for the gateway's /admin/: every asset under it, nothing inline (the page's Content-Security-Policy
 * allows scripts and styles from the origin only), and no module preload polyfill, which Vite would inline.
 */
export default defineConfig({
  base: '/admin/',
  plugins: [react()],
  build: {
    // BACK_OFFICE_OUT_DIR: the browser tests build into a folder of their own.
    outDir: process.env.BACK_OFFICE_OUT_DIR ?? 'dist',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: true,
  },
});
