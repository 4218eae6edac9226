import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapGetter,
  TraceFlags,
  type Tracer,
} from '@opentelemetry/api';

export { SpanKind, SpanStatusCode };
export type { Context, Span };

/**
 * Whether an SDK was started in this process. Every helper here asks this first, so that with tracing off a request
 * pays one comparison per hook and allocates nothing: the API's no-op spans would still be objects made per call.
 */
let on = false;
let tracer: Tracer | undefined;

/** Called by startTracing once the SDK is registered, and by its shutdown. */
export function setTracingOn(value: boolean): void {
  on = value;
  tracer = value ? trace.getTracer('@platform/runtime') : undefined;
}

export function tracingIsOn(): boolean {
  return on;
}

/** W3C trace context as it travels in headers: `traceparent`, and `tracestate` when there is one. */
export type TraceCarrier = Record<string, string>;

export interface SpanSettings {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  /** The span's parent: the active context when absent. */
  readonly parent?: Context;
}

/**
 * Whether `parent` is inside a trace its root chose not to sample (`traceparent` flags 00): nothing under it is
 * recorded, so nothing is made under it either, no span, no context; the parent's context alone carries the
 * decision on to the services it calls.
 */
function unsampled(parent: Context): boolean {
  const span = trace.getSpan(parent);
  return span !== undefined && (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0;
}

/**
 * The SDK's span under `parent`, its attributes set only once the sampler has recorded it: handed to startSpan, they
 * would be copied and checked for the nine traces in ten it drops (the samplers the standard variables name read
 * only the trace id and the parent).
 */
function started(name: string, settings: SpanSettings, parent: Context): Span {
  const span = tracer!.startSpan(name, { kind: settings.kind ?? SpanKind.INTERNAL }, parent);
  if (settings.attributes && span.isRecording()) span.setAttributes(settings.attributes);
  return span;
}

function settle(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/**
 * Runs `work` inside a new span, which ends when `work` settles (marked as an error when it throws). With tracing off,
 * or with `onlyInTrace` and no span active, it is `work()` and nothing else.
 */
export function inSpan<T>(name: string, settings: SpanSettings, work: (span?: Span) => Promise<T>): Promise<T> {
  if (!on) return work();
  const parent = settings.parent ?? context.active();
  if (unsampled(parent)) return parent === context.active() ? work() : context.with(parent, work);
  const span = started(name, settings, parent);
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await work(span);
    } catch (error) {
      settle(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Like inSpan, but only inside a trace: a database statement nobody traced (the relay's polling) opens no trace. */
export function inChildSpan<T>(name: string, settings: SpanSettings, work: (span?: Span) => Promise<T>): Promise<T> {
  if (!on || !trace.getActiveSpan() || unsampled(context.active())) return work();
  return inSpan(name, settings, work);
}

/**
 * Starts a span the caller ends (a server span named once the router has matched), and the context holding it. Inside
 * an unsampled trace, no span: the context is the parent's, to carry the decision on.
 */
export function startSpan(name: string, settings: SpanSettings): { span?: Span; context: Context } | undefined {
  if (!on) return undefined;
  const parent = settings.parent ?? context.active();
  if (unsampled(parent)) return { context: parent };
  const span = started(name, settings, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `work` with `ctx` active (with tracing off, `ctx` is undefined and `work` just runs). */
export function withContext<T>(ctx: Context | undefined, work: () => T): T {
  return ctx ? context.with(ctx, work) : work();
}

/**
 * Runs `work` outside any trace: work a request sets going but does not wait for (a background refresh) is not part of
 * the request's trace, nor of whichever request happens to wait for it next. With tracing off, `work()`.
 */
export function outsideTrace<T>(work: () => T): T {
  return on ? context.with(ROOT_CONTEXT, work) : work();
}

/** Marks a span as failed by `error` (none: nothing to mark). */
export function failSpan(span: Span | undefined, error: unknown): void {
  if (span) settle(span, error);
}

/** The id of the trace being worked in, for a record that should name it (a ledger movement). */
export function currentTraceId(): string | undefined {
  if (!on) return undefined;
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/** `traceId` and `spanId` of the active span, for a log line written inside it; undefined outside any. */
export function traceFields(): { traceId: string; spanId: string } | undefined {
  if (!on) return undefined;
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}

/** The active trace context as headers (`traceparent`, `tracestate`), or undefined outside any trace. */
export function traceCarrier(ctx: Context = on ? context.active() : ROOT_CONTEXT): TraceCarrier | undefined {
  if (!on || !trace.getSpan(ctx)) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** Made once: a request's headers are read through it on every traced request. */
const HEADER_GETTER: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    if (typeof value === 'string') return value;
    if (Buffer.isBuffer(value)) return value.toString('utf8');
    return Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;
  },
};

/**
 * The context `headers` carry (HTTP request headers, AMQP message headers, a carrier stored with an outbox row), to
 * continue their trace; the root context when they carry none. Undefined with tracing off.
 */
export function contextFrom(headers: Readonly<Record<string, unknown>> | undefined): Context | undefined {
  if (!on) return undefined;
  if (!headers) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers, HEADER_GETTER);
}

/** The active trace context as text to store beside a record (an outbox row), or null outside any trace. */
export function storedTraceContext(): string | null {
  const carrier = traceCarrier();
  return carrier ? JSON.stringify(carrier) : null;
}

/** The context a stored trace context (storedTraceContext's text) names; undefined when off, the root when none. */
export function contextFromStored(stored: string | null | undefined): Context | undefined {
  if (!on) return undefined;
  if (!stored) return ROOT_CONTEXT;
  try {
    return contextFrom(JSON.parse(stored) as Record<string, unknown>);
  } catch {
    return ROOT_CONTEXT;
  }
}
