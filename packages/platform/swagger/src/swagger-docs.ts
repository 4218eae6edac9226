import { createReadStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Middleware } from 'koa';
import { koaSwagger } from 'koa2-swagger-ui';
import { parse } from 'yaml';

const require = createRequire(import.meta.url);
const swaggerUiDist = dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerUiVersion = (JSON.parse(readFileSync(join(swaggerUiDist, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The files the koa2-swagger-ui page asks for, and where swagger-ui-dist keeps them.
 * Its template wants swagger-ui.min.css, which swagger-ui-dist no longer ships:
 * the unminified stylesheet answers for it. A Map, because the name comes from
 * the URL: an object would answer `__proto__` or `constructor` with its prototype's.
 */
const ASSETS: ReadonlyMap<string, { file: string; type: string }> = new Map([
  ['swagger-ui-bundle.js', { file: 'swagger-ui-bundle.js', type: 'application/javascript' }],
  ['swagger-ui-standalone-preset.js', { file: 'swagger-ui-standalone-preset.js', type: 'application/javascript' }],
  ['swagger-ui.min.css', { file: 'swagger-ui.css', type: 'text/css' }],
  ['favicon.png', { file: 'favicon-32x32.png', type: 'image/png' }],
]);

/** Everything below the page is read-only. */
const ALLOWED_METHODS = 'GET, HEAD';

/** The template links Google Fonts; the page must not reach any other host, and swagger-ui's stylesheet falls back to system fonts. */
const WEB_FONTS = /<link[^>]+fonts\.googleapis\.com[^>]*>\s*/g;

export interface SwaggerDocsOptions {
  /** The OpenAPI description, in YAML. */
  readonly specFile: string;
  readonly title: string;
  /** Where the page lives; the description and assets are served below it. Default /swagger. */
  readonly prefix?: string;
}

/**
 * GET {prefix}: the interactive page; {prefix}/openapi.yaml and .json: the
 * description; {prefix}/assets/…: swagger-ui itself, from the installed package.
 * Any other method there is a bare 405 with Allow, which the app's error
 * middleware turns into its problem.
 */
export function swaggerDocs({ specFile, title, prefix = '/swagger' }: SwaggerDocsOptions): Middleware {
  const yamlText = readFileSync(specFile, 'utf8');
  const spec = parse(yamlText) as Record<string, unknown>;
  const jsonText = JSON.stringify(spec);
  const assetsPrefix = `${prefix}/assets`;
  const page = koaSwagger({
    routePrefix: prefix,
    title,
    swaggerVersion: swaggerUiVersion,
    swaggerCdnUrl: assetsPrefix,
    favicon: `${assetsPrefix}/${swaggerUiVersion}/favicon.png`,
    hideTopbar: true,
    swaggerOptions: {
      url: `${prefix}/openapi.json`,
      // Without this, swagger-ui sends the description to validator.swagger.io for a badge.
      validatorUrl: null,
      docExpansion: 'list',
      displayRequestDuration: true,
      tryItOutEnabled: false,
    },
  });

  return async function swaggerPages(ctx, next) {
    if (ctx.path !== prefix && !ctx.path.startsWith(`${prefix}/`)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', ALLOWED_METHODS);
      return;
    }
    const rest = ctx.path.slice(prefix.length);
    if (rest === '/openapi.yaml') {
      ctx.type = 'application/yaml';
      ctx.body = yamlText;
      return;
    }
    if (rest === '/openapi.json') {
      ctx.type = 'application/json';
      ctx.body = jsonText;
      return;
    }
    if (rest.startsWith('/assets/')) {
      const asset = ASSETS.get(rest.split('/').pop() ?? '');
      if (!asset) return next();
      ctx.type = asset.type;
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = createReadStream(join(swaggerUiDist, asset.file));
      return;
    }
    if (rest !== '' && rest !== '/') return next();
    await page(ctx, next);
    if (typeof ctx.body === 'string') ctx.body = ctx.body.replace(WEB_FONTS, '');
  };
}
