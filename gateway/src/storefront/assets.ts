import fs from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';

const HASHED = 'public, max-age=31536000, immutable';

/**
 * The built storefront's files: hashed assets cached for a year, sent as the build's own brotli or
 * gzip copy (storefront/vite.config.ts writes them) to a browser that takes it, smaller than
 * compressing on the fly and with no work per request; other files (favicon) for five minutes.
 * index.html is not served from here (pages.ts).
 */
export function staticAssets(distDir: string) {
  const assetsDir = path.join(distDir, 'assets');
  const precompressed = (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.path.startsWith('/assets/')) return next();
    // Brotli whenever it is accepted at all: browsers list gzip first without preferring it.
    const accepted = req.acceptsEncodings();
    const encoding = accepted.includes('br') ? 'br' : accepted.includes('gzip') ? 'gzip' : null;
    const file = path.join(assetsDir, path.basename(req.path));
    const copy = `${file}.${encoding === 'br' ? 'br' : 'gz'}`;
    if (!encoding || !fs.existsSync(copy)) return next();
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('Content-Encoding', encoding);
    res.setHeader('Cache-Control', HASHED);
    res.type(path.extname(file));
    res.sendFile(copy, { cacheControl: false }, (error) => error && next(error));
  };
  const files = express.static(distDir, {
    index: false,
    setHeaders(res, file) {
      res.setHeader('Cache-Control', file.startsWith(assetsDir + path.sep) ? HASHED : 'public, max-age=300');
    },
  });
  return [precompressed, files];
}
