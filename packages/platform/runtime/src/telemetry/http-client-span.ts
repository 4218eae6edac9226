import { type Context, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { failSpan, startSpan, type TraceCarrier, traceCarrier, tracingIsOn } from './tracing';

/** One HTTP attempt's client span, and the headers that make the server's span its child. */
export interface HttpClientSpan {
  /** None inside an unsampled trace: the headers then carry the parent's context, with its decision. */
  readonly span?: Span;
  /** `traceparent` (and `tracestate`) naming this span: sent with the request, in place of any other. */
  readonly headers: TraceCarrier;
}

function portOf({ port, protocol }: URL): number {
  if (port) return Number(port);
  return protocol === 'https:' ? 443 : 80;
}

/**
 * The active context, to hand to startHttpClientSpan from where a call began when its attempts run elsewhere (a
 * bulkhead starts a queued call from the call that freed its place, in that call's context). Undefined when off.
 */
export function activeContext(): Context | undefined {
  return tracingIsOn() ? context.active() : undefined;
}

/**
 * Starts the client span of one attempt of an HTTP call, named by its method as the gateway's are (`GET`), with
 * OpenTelemetry's HTTP attributes, under `parent` (the active context when absent). Only inside a trace: a call nobody
 * traced (a background refresh) opens none, unless `orNewTrace` says the call is worth a trace of its own (a webhook
 * delivery of an event no trace wrote). Undefined then, and with tracing off, which costs one comparison.
 */
export function startHttpClientSpan(
  method: string,
  url: string | URL,
  parent?: Context,
  { orNewTrace = false }: { readonly orNewTrace?: boolean } = {},
): HttpClientSpan | undefined {
  if (!tracingIsOn()) return undefined;
  const within = parent ?? context.active();
  if (!trace.getSpan(within) && !orNewTrace) return undefined;
  const target = typeof url === 'string' ? new URL(url) : url;
  const started = startSpan(method, {
    kind: SpanKind.CLIENT,
    parent: within,
    attributes: {
      'http.request.method': method,
      'server.address': target.hostname,
      'server.port': portOf(target),
    },
  })!;
  return { ...(started.span && { span: started.span }), headers: traceCarrier(started.context) ?? {} };
}

/** Ends an attempt's span with the status the server answered; a 5xx marks it failed (the server's fault). */
export function endHttpClientSpan(span: Span | undefined, status: number): void {
  if (!span) return;
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Ends an attempt's span that got no answer (refused, reset, timed out) as failed by `error`. */
export function abandonHttpClientSpan(span: Span | undefined, error: unknown): void {
  if (!span) return;
  failSpan(span, error);
  span.end();
}
