import type { Middleware } from 'koa';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';

const PREFIX = '/admin';

/**
 * What the back office may do: run and style itself from its own files, call this origin only (the APIs and the
 * issuer, both through the gateway), and nothing else: no inline script, no eval, no plugin, never framed.
 */
export const BACK_OFFICE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** What Vite writes under assets/: hashed names, one folder deep. Anything else is not a file of the build. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

const NOT_BUILT = (folder: string) =>
  `The back office is not built: no index.html in ${folder}.\n` +
  'Build it with `pnpm build:back-office` (or `pnpm build`), then reload this page.\n';

const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;

/**
 * GET {PREFIX}/assets/…: the built files, cached for good (their names change with their content); any other path
 * under {PREFIX}/: index.html, for the app's own routes, never cached and under the Content-Security-Policy above.
 * Without a build, a 503 that says how to make one. Read from `folder` on each request, so a rebuild shows at once.
 */
export function backOfficeFiles(folder: string): Middleware {
  return async function backOfficeFiles(ctx, next) {
    if (ctx.path === PREFIX) {
      ctx.redirect(`${PREFIX}/`);
      return;
    }
    if (!ctx.path.startsWith(`${PREFIX}/`)) return next() as Promise<void>;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      return;
    }
    ctx.set('Content-Security-Policy', BACK_OFFICE_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    // The sign-in's callback URL carries a code: no other site hears of it.
    ctx.set('Referrer-Policy', 'no-referrer');
    const asset = /^\/admin\/assets\/([^/]+)$/.exec(ctx.path)?.[1];
    if (asset !== undefined) {
      const file = join(folder, 'assets', asset);
      if (!ASSET_NAME.test(asset) || !isFile(file)) return next() as Promise<void>;
      ctx.type = extname(file);
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.body = createReadStream(file);
      return;
    }
    const index = join(folder, 'index.html');
    ctx.set('Cache-Control', 'no-cache');
    if (!isFile(index)) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = NOT_BUILT(folder);
      return;
    }
    ctx.type = 'html';
    ctx.body = readFileSync(index, 'utf8');
  };
}
