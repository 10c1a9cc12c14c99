import fs from 'node:fs';
import path from 'node:path';
import express, { type Request, type Response, type NextFunction } from 'express';

export interface StorefrontOptions {
  /** SENTRY_DSN: written into every page as `<meta name="sentry-dsn">`, from which the storefront starts Sentry. */
  sentryDsn?: string;
}

const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Serves the built storefront: hashed assets cached for a year, index.html never cached, and
 * index.html for every other GET outside /api and /media (history-mode routing), with the
 * settings the browser reads at run time in its head (no call before the first render).
 */
export function storefrontHandler(distDir: string, options: StorefrontOptions = {}) {
  const runtime = options.sentryDsn ? `<meta name="sentry-dsn" content="${attribute(options.sentryDsn)}" />` : null;
  const indexFile = path.join(distDir, 'index.html');
  const assets = express.static(distDir, {
    index: false,
    setHeaders(res, file) {
      const hashed = file.includes(`${path.sep}assets${path.sep}`);
      res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    },
  });
  return [
    assets,
    async (req: Request, res: Response, next: NextFunction) => {
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.accepts('html')) return next();
      if (!fs.existsSync(indexFile)) {
        res.status(503).type('text').send('The storefront is not built yet: run `npm run build`.');
        return;
      }
      res.setHeader('Cache-Control', 'no-cache');
      if (!runtime) return res.sendFile(indexFile);
      const page = await fs.promises.readFile(indexFile, 'utf8');
      res.type('html').send(page.replace('</head>', `${runtime}</head>`));
    },
  ];
}
