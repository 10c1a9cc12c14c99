import fs from 'node:fs';
import path from 'node:path';
import type { NextFunction, Request, Response } from 'express';

const CONSOLE_PATH = /^\/admin(\/|$)/;

/**
 * The operators' console (storefront/admin.html, its own entry of the storefront's build): `/admin`
 * and every address under it get the built admin.html, never cached, for the console's own routing
 * to draw; nothing rendered on the server, and nothing of the viewer's pages. Its data comes from
 * /api/admin/*, which checks the caller's role.
 */
export function consoleHandler(distDir: string) {
  const file = path.join(distDir, 'admin.html');
  let built: { mtimeMs: number; page: string } | null = null;
  const builtPage = (): string | null => {
    try {
      const { mtimeMs } = fs.statSync(file);
      if (built?.mtimeMs !== mtimeMs) built = { mtimeMs, page: fs.readFileSync(file, 'utf8') };
      return built.page;
    } catch {
      return null;
    }
  };
  return (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !CONSOLE_PATH.test(req.path) || !req.accepts('html')) return next();
    const page = builtPage();
    if (page === null) {
      res.status(503).type('text').send('The console is not built yet: run `npm run build`.');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    // Not for search engines, whatever a crawler finds linked.
    res.setHeader('X-Robots-Tag', 'noindex');
    res.type('html').send(page);
  };
}
