import { startTracing, type Tracing } from './telemetry/index';
import type { Logger } from './logger';

export interface Started {
  readonly logger: Logger;
  /** Stops gracefully; answers false when it had to cut work (requests, a database that would not close). */
  close(options?: { immediate?: boolean }): Promise<boolean | void>;
}

/** The first line of an error's message: what a person needs, without a stack trace. */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim() || (error as Error)?.name || 'unknown error';
}

/** How long a stopping process waits for its last spans to be exported. */
const TRACE_FLUSH_TIMEOUT_MS = 2_000;

/** Exports the spans still buffered, within TRACE_FLUSH_TIMEOUT_MS: a collector that is away cannot hold the exit. */
async function flushTraces(tracing: Tracing): Promise<void> {
  if (!tracing.on) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, TRACE_FLUSH_TIMEOUT_MS)));
  await Promise.race([tracing.shutdown().catch(() => {}), late]);
  clearTimeout(timer);
}

export interface MainOptions {
  /** OTEL_SERVICE_NAME when the variable is not set: the process traces when OTEL_EXPORTER_OTLP_ENDPOINT is. */
  readonly tracingName?: string;
}

/**
 * A service's process. A failure to start is one line on stderr and exit 1,
 * never a stack trace. SIGTERM stops gracefully (with the drain delay load
 * balancers need); SIGINT, a person's Ctrl-C, skips the delay. Exit 0 after a
 * clean stop, 1 when work had to be cut. A second signal while stopping is ignored. Tracing starts before the
 * service (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set) and is flushed after it stops.
 */
export async function runMain(name: string, start: () => Promise<Started>, options: MainOptions = {}): Promise<void> {
  let service: Started;
  let tracing: Tracing = { on: false, shutdown: async () => {} };
  try {
    if (options.tracingName) tracing = await startTracing(options.tracingName);
    service = await start();
  } catch (error) {
    process.stderr.write(`${name} failed to start: ${oneLine(error)}\n`);
    await flushTraces(tracing);
    process.exit(1);
  }
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      service.logger.info('stopping', { signal });
      service.close({ immediate: signal === 'SIGINT' }).then(
        async (clean) => {
          service.logger.info(clean === false ? 'stopped, cutting work that had not finished' : 'stopped');
          await flushTraces(tracing);
          process.exit(clean === false ? 1 : 0);
        },
        async (error: unknown) => {
          service.logger.error('failed to stop cleanly', { error: oneLine(error) });
          await flushTraces(tracing);
          process.exit(1);
        },
      );
    });
  }
}
