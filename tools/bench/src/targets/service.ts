import { runMain } from '@platform/runtime';
import { loadConfig, startStockService } from '@stock/service';

/**
 * The stock service as `pnpm start` runs it: its own settings (info access log
 * on stdout, metrics, request ids), unless the environment says otherwise.
 */
await runMain('stock service', async () => {
  const service = await startStockService(loadConfig());
  console.log(JSON.stringify({ message: 'listening', port: service.port }));
  return { logger: service.logger, close: () => service.close({ immediate: true }) };
});
