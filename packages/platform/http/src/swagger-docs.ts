import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Middleware } from 'koa';
import { koaSwagger } from 'koa2-swagger-ui';
import { parse, stringify } from 'yaml';

const require = createRequire(import.meta.url);
const swaggerUiDist = dirname(require.resolve('swagger-ui-dist/package.json'));
const swaggerUiVersion = (JSON.parse(readFileSync(join(swaggerUiDist, 'package.json'), 'utf8')) as { version: string })
  .version;

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

/**
 * The template links Google Fonts; the page must not reach any other host, and swagger-ui's stylesheet falls back to
 * system fonts.
 */
const WEB_FONTS = /<link[^>]+fonts\.googleapis\.com[^>]*>\s*/g;

/**
 * The template hides its icon sprites with a style attribute, which a policy
 * without 'unsafe-inline' refuses: the same rule goes into its style element.
 */
const SPRITES_STYLE = ' style="position:absolute;width:0;height:0"';
const SPRITES_RULE = '    svg.sprites { position: absolute; width: 0; height: 0; }\n  </style>';

function withoutInlineStyleAttributes(html: string): string {
  if (!html.includes(SPRITES_STYLE)) return html;
  return html.replace(SPRITES_STYLE, ' class="sprites"').replace('</style>', SPRITES_RULE);
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The template's one inline script and one inline style, each allowed by its hash. */
function inlineHashes(html: string, tag: 'script' | 'style'): string[] {
  return [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map(([, body]) => sha256(body!));
}

/**
 * The style elements swagger-ui's standalone preset creates (the top bar's
 * logo colours its SVG with one), each allowed by its hash, read from the
 * installed file so that an upgrade brings its own. The bundle creates none.
 */
function presetStyleHashes(): string[] {
  const preset = readFileSync(join(swaggerUiDist, 'swagger-ui-standalone-preset.js'), 'utf8');
  return [...preset.matchAll(/createElement\("style",null,("(?:[^"\\]|\\.)*")\)/g)].map(([, literal]) =>
    sha256(JSON.parse(literal!) as string),
  );
}

/**
 * What the page may do: run swagger-ui's own files and the template's inline
 * script, apply their styles, call its own origin only (the descriptions, the
 * API, the token endpoint), and never be framed. The template changes only
 * with the options, so the policy is worked out once, from the first page.
 */
function contentSecurityPolicy(html: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${inlineHashes(html, 'script').join(' ')}`,
    `style-src 'self' ${[...inlineHashes(html, 'style'), ...presetStyleHashes()].join(' ')}`,
    // swagger-ui's stylesheet draws its icons as data: SVGs.
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** One description among several on the page, picked from its top bar. */
export interface SwaggerDocument {
  /** What the selector shows. */
  readonly name: string;
  /** Its file name below the page: {prefix}/{slug}.json and .yaml. */
  readonly slug: string;
  /** The description, already parsed (and adjusted, as the gateway does for the services behind it). */
  readonly spec: Record<string, unknown>;
}

export interface SwaggerDocsOptions {
  /** The OpenAPI description, in YAML; or `documents`, several on one page. */
  readonly specFile?: string;
  readonly documents?: readonly SwaggerDocument[];
  readonly title: string;
  /** Where the page lives; the description and assets are served below it. Default /swagger. */
  readonly prefix?: string;
  /** swagger-ui's initOAuth options, for an Authorize button that gets tokens (the gateway's client credentials). */
  readonly oauth?: Record<string, unknown>;
}

/** The descriptions served below the page, by the name their file has there. */
function descriptions({ specFile, documents }: SwaggerDocsOptions): {
  files: Map<string, { type: string; text: string }>;
  urls: { url: string; name: string }[];
} {
  const files = new Map<string, { type: string; text: string }>();
  const urls: { url: string; name: string }[] = [];
  if (specFile) {
    const yamlText = readFileSync(specFile, 'utf8');
    files.set('openapi.yaml', { type: 'application/yaml', text: yamlText });
    files.set('openapi.json', { type: 'application/json', text: JSON.stringify(parse(yamlText)) });
    urls.push({ url: 'openapi.json', name: 'openapi' });
  }
  for (const { name, slug, spec } of documents ?? []) {
    files.set(`${slug}.yaml`, { type: 'application/yaml', text: stringify(spec) });
    files.set(`${slug}.json`, { type: 'application/json', text: JSON.stringify(spec) });
    urls.push({ url: `${slug}.json`, name });
  }
  if (urls.length === 0) throw new Error('swaggerDocs needs a specFile or documents');
  return { files, urls };
}

/**
 * GET {prefix}: the interactive page; {prefix}/openapi.yaml and .json (or
 * {slug}.yaml and .json of each of several documents, with a selector in the
 * top bar): the descriptions; {prefix}/assets/…: swagger-ui itself, from the
 * installed package. Any other method there is a bare 405 with Allow, which
 * the app's error middleware turns into its problem.
 */
export function swaggerDocs(options: SwaggerDocsOptions): Middleware {
  const { title, prefix = '/swagger', oauth } = options;
  const { files, urls } = descriptions(options);
  const several = urls.length > 1;
  let policy: string | undefined;
  const assetsPrefix = `${prefix}/assets`;
  const page = koaSwagger({
    routePrefix: prefix,
    title,
    swaggerVersion: swaggerUiVersion,
    swaggerCdnUrl: assetsPrefix,
    favicon: `${assetsPrefix}/${swaggerUiVersion}/favicon.png`,
    // The top bar holds the selector between several descriptions; with one there is nothing to select.
    hideTopbar: !several,
    ...(oauth && { oauthOptions: oauth }),
    swaggerOptions: {
      ...(several
        ? { urls: urls.map(({ url, name }) => ({ url: `${prefix}/${url}`, name })), 'urls.primaryName': urls[0]!.name }
        : { url: `${prefix}/${urls[0]!.url}` }),
      // Without this, swagger-ui sends the description to validator.swagger.io for a badge.
      validatorUrl: null,
      docExpansion: 'list',
      displayRequestDuration: true,
      tryItOutEnabled: false,
      // Kept in memory only: persisted, the client secret and the token would sit in localStorage for any script on the
      // origin to read.
      persistAuthorization: false,
    },
  });

  return async function swaggerPages(ctx, next) {
    if (ctx.path !== prefix && !ctx.path.startsWith(`${prefix}/`)) {
      await next();
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', ALLOWED_METHODS);
      return;
    }
    const rest = ctx.path.slice(prefix.length);
    const file = files.get(rest.slice(1));
    if (file && rest.lastIndexOf('/') === 0) {
      ctx.type = file.type;
      ctx.body = file.text;
      return;
    }
    if (rest.startsWith('/assets/')) {
      const asset = ASSETS.get(rest.split('/').pop() ?? '');
      if (!asset) {
        await next();
        return;
      }
      ctx.type = asset.type;
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = createReadStream(join(swaggerUiDist, asset.file));
      return;
    }
    if (rest !== '' && rest !== '/') {
      await next();
      return;
    }
    await page(ctx, next);
    if (typeof ctx.body === 'string') {
      const html = withoutInlineStyleAttributes(ctx.body.replace(WEB_FONTS, ''));
      ctx.body = html;
      policy ??= contentSecurityPolicy(html);
      ctx.set('Content-Security-Policy', policy);
    }
  };
}
