import { context, propagation, trace } from '@opentelemetry/api';
import { setTracingOn } from './tracing';

/** A process's tracing, on or off: `shutdown` exports what is still buffered, then stops. */
export interface Tracing {
  readonly on: boolean;
  shutdown(): Promise<void>;
}

const OFF: Tracing = { on: false, shutdown: async () => {} };

/** Whether the standard variables ask for traces: an OTLP endpoint, and the SDK not disabled. */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  return Boolean(endpoint) && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}

/**
 * Starts OpenTelemetry's Node SDK, configured only by the standard variables (OTEL_EXPORTER_OTLP_ENDPOINT,
 * OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, and the others the
 * SDK reads), traces only. Without an endpoint, nothing is loaded: no SDK, no exporter, no AsyncLocalStorage context
 * manager (whose hooks would tax every await), and every helper of this package stays a comparison (ADR 0021). The SDK
 * reads the process's environment itself, so `env` must be process.env but for what this function reads.
 */
export async function startTracing(defaultServiceName: string, env: NodeJS.ProcessEnv = process.env): Promise<Tracing> {
  if (!tracingRequested(env)) return OFF;
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME?.trim() || defaultServiceName,
    // Spans are opened explicitly by the platform (ADR 0021): no auto-instrumentation, no metrics or logs exported.
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  setTracingOn(true);
  let stopping: Promise<void> | undefined;
  return {
    on: true,
    shutdown: () =>
      (stopping ??= sdk.shutdown().finally(() => {
        setTracingOn(false);
        // The API's globals go too: a process (a test) may start tracing again.
        trace.disable();
        context.disable();
        propagation.disable();
      })),
  };
}
