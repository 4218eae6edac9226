import { runMain } from '@platform/runtime';
import { loadConfig, startStockService } from '@stock/service';
import { fileURLToPath } from 'node:url';

/**
 * The stock service as `pnpm start` runs it: its own settings (info access log
 * on stdout, metrics, request ids), unless the environment says otherwise; traced when it sets
 * OTEL_EXPORTER_OTLP_ENDPOINT.
 */
await runMain(
  'stock service',
  async () => {
    // Its description too, as main.ts hands it over: /swagger is served, as it is for users.
    const service = await startStockService(
      loadConfig(process.env, process.cwd(), {
        openApiFile: fileURLToPath(new URL('../../../../docs/openapi.yaml', import.meta.url)),
      }),
    );
    console.log(JSON.stringify({ message: 'listening', port: service.port }));
    return { logger: service.logger, close: () => service.close({ immediate: true }) };
  },
  { tracingName: 'stock-service' },
);
