/**
 * The environment the services get: start:system's, OTEL_* included when OTEL_EXPORTER_OTLP_ENDPOINT is set (the
 * collector a user names), but for OTEL_SERVICE_NAME, which would give all four one name: each keeps its default
 * (`gateway`, `stock-service`, `sales-service`, `identity`). Without an endpoint, no OTEL_* variable passes, so a
 * stray one changes nothing.
 */
export function servicesEnv(from: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const tracing = Boolean(from.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
  return Object.fromEntries(
    Object.entries(from).filter(([name]) => !name.startsWith('OTEL_') || (tracing && name !== 'OTEL_SERVICE_NAME')),
  );
}
