import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const gateway = 'http://127.0.0.1:8080';

// Every build the site serves is a production build, whoever starts it: under vitest (NODE_ENV=test)
// or a shell with NODE_ENV=development, React would otherwise be bundled in its development build.
if (process.argv.includes('build')) process.env.NODE_ENV = 'production';

export default defineConfig({
  base: '/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': gateway, '/media': gateway, '/sandbox': gateway },
  },
});
