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

/** A health probe's line is debug: balancers ask every second or so; a readiness change is logged where it is seen. */
function accessLevelOf(ctx: Context): 'info' | 'debug' {
  return HEALTH_PATHS.has(ctx.path) ? 'debug' : 'info';
}

/** The route label of a finished request: the router's pattern, never the raw path. */
function routeOf(ctx: Context): string {
  return (
    (ctx as { _matchedRoute?: string })._matchedRoute ?? (ctx.path.startsWith('/swagger') ? '/swagger' : 'unmatched')
  );
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
  return async function requestContext(ctx, next) {
    const offered = ctx.get('X-Request-Id');
    const requestId = CLIENT_REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.state.requestId = requestId;
    const started = process.hrtime.bigint();
    // Health probes, every second or so from each balancer, are not traced: they are not news in a trace either.
    const traced = tracingIsOn() && !HEALTH_PATHS.has(ctx.path) ? serverSpan(ctx) : undefined;
    try {
      await withContext(traced?.context, next);
    } catch (error) {
      if (traced) failSpan(traced.span, error);
      throw error;
    } finally {
      // Set last: the problem middleware clears headers on errors.
      ctx.set('X-Request-Id', requestId);
      ctx.set('X-Content-Type-Options', 'nosniff');
      // An answer given to a verified token (its 304s and problems too) is that caller's alone: no cache may keep it
      // for another.
      if (principalOf(ctx)) ctx.set('Cache-Control', 'no-store');
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      metrics.record(routeOf(ctx), ctx.method, ctx.status, durationMs / 1000);
      const { logFields } = ctx.state as { logFields?: Record<string, unknown> };
      const { method, path, status } = ctx;
      const level = accessLevelOf(ctx);
      const ids = traced?.span && endServerSpan(traced.span, ctx);
      logger.log({ ...logFields, ...ids, method, path, status, durationMs, requestId, level, message: 'request' });
    }
  };
}

function serverSpan(ctx: Context) {
  return startSpan(ctx.method, {
    kind: SpanKind.SERVER,
    parent: contextFrom(ctx.req.headers),
    attributes: { 'http.request.method': ctx.method, 'url.path': ctx.path },
  });
}

/** Names the span by the route, records the status, ends it, and answers its ids for the access log line. */
function endServerSpan(span: Span, ctx: Context): { traceId: string; spanId: string } {
  const route = routeOf(ctx);
  span.updateName(`${ctx.method} ${spanRouteOf(route)}`);
  span.setAttribute('http.route', route);
  span.setAttribute('http.response.status_code', ctx.status);
  if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}
