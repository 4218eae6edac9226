import {
  contextFrom,
  failSpan,
  type Span,
  SpanKind,
  SpanStatusCode,
  startSpan,
  tracingIsOn,
  withContext,
} from '@platform/runtime';
import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { principalOf } from './auth/principal';
import type { HttpMetrics } from './http-metrics';
import type { HttpLogger } from './logger';
import { HEALTH_PATHS } from './operations-router';

const CLIENT_REQUEST_ID = /^[\w.:@\-/]{1,128}$/;

/** The id of the request a context serves (set by requestContext). */
export function requestIdOf(ctx: Context): string {
  return (ctx.state as { requestId: string }).requestId;
}

/**
 * Adds fields to the request's access-log line, so that what a request did
 * (a product created, stock adjusted: say it as `event`) is told once, on the
 * one line every request gets, with its request id, status and duration.
 */
export function logWith(ctx: Context, fields: Readonly<Record<string, unknown>>): void {
  const state = ctx.state as { logFields?: Record<string, unknown> };
  state.logFields = state.logFields ? { ...state.logFields, ...fields } : fields;
}

/** The route label of a finished request: the router's pattern, never the raw path. */
function routeOf(ctx: Context, path: string): string {
  return (ctx as { _matchedRoute?: string })._matchedRoute ?? (path.startsWith('/swagger') ? '/swagger' : 'unmatched');
}

/** A span's name for a route: OpenTelemetry's `{id}` for the router's `:id`. */
export function spanRouteOf(route: string): string {
  return route.replace(/:(\w+)/g, '{$1}');
}

/**
 * The outermost middleware: gives each request an id (the client's
 * X-Request-Id when it is sane, a new UUID otherwise), answers it in every
 * response with the headers every response carries (and `Cache-Control:
 * no-store` on those that depend on an access token), times the request once for
 * its access log line (one per request: handlers add to it with logWith) and its metrics. The id travels in ctx.state
 * rather than
 * AsyncLocalStorage, whose promise hooks would tax every await of every request. With tracing on, each request is a
 * server span continuing the caller's `traceparent`, named by its route once the router has matched it
 * (`GET /api/products/{id}`), and the access log line names it.
 */
export function requestContext(logger: HttpLogger, metrics: HttpMetrics): Middleware {
  // The logger's levels do not change once it is made: an access line of a level it does not write is never built.
  const writesInfo = logger.isEnabled?.('info') ?? true;
  const writesDebug = logger.isEnabled?.('debug') ?? true;
  return async function requestContext(ctx, next) {
    const { req, res } = ctx;
    const offered = req.headers['x-request-id'];
    const requestId = typeof offered === 'string' && CLIENT_REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.state.requestId = requestId;
    const started = performance.now();
    // Read once: Koa parses the URL again on every read of ctx.path, and nothing rewrites it.
    const { path, method } = ctx;
    // A health probe's line is debug (balancers ask every second or so; a readiness change is logged where it is
    // seen), and probes are not traced: they are not news in a trace either.
    const probe = HEALTH_PATHS.has(path);
    const traced = !probe && tracingIsOn() ? serverSpan(ctx, method, path) : undefined;
    try {
      await (traced ? withContext(traced.context, next) : next());
    } catch (error) {
      if (traced) failSpan(traced.span, error);
      throw error;
    } finally {
      // Set last: the problem middleware clears headers on errors. Straight on the response (Koa's ctx.set is this
      // and a check of headersSent, made once here).
      if (!res.headersSent) {
        res.setHeader('X-Request-Id', requestId);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        // An answer given to a verified token (its 304s and problems too) is that caller's alone: no cache may keep
        // it for another.
        if (principalOf(ctx)) res.setHeader('Cache-Control', 'no-store');
      }
      // To the nanosecond, as hrtime gave it: a difference of two doubles would print seventeen digits.
      const durationMs = Math.round((performance.now() - started) * 1e6) / 1e6;
      const status = res.statusCode;
      const route = routeOf(ctx, path);
      metrics.record(route, method, status, durationMs / 1000);
      const ids = traced?.span && endServerSpan(traced.span, method, route, status);
      if (probe ? writesDebug : writesInfo) {
        const level = probe ? 'debug' : 'info';
        const { logFields } = ctx.state as { logFields?: Record<string, unknown> };
        // One object per line, handed over whole; the spreads only when a handler or a span added fields.
        logger.log(
          logFields || ids
            ? { ...logFields, ...ids, method, path, status, durationMs, requestId, level, message: 'request' }
            : { method, path, status, durationMs, requestId, level, message: 'request' },
        );
      }
    }
  };
}

function serverSpan(ctx: Context, method: string, path: string) {
  return startSpan(method, {
    kind: SpanKind.SERVER,
    parent: contextFrom(ctx.req.headers),
    attributes: { 'http.request.method': method, 'url.path': path },
  });
}

/** Names the span by the route, records the status, ends it, and answers its ids for the access log line. */
function endServerSpan(span: Span, method: string, route: string, status: number): { traceId: string; spanId: string } {
  span.updateName(`${method} ${spanRouteOf(route)}`);
  span.setAttribute('http.route', route);
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}
