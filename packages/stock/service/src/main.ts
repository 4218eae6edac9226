import { displayUrl, redactedUrl, runMain } from '@platform/runtime';
import { loadConfig } from './config';
import { startStockService } from './stock-service';

await runMain('stock service', async () => {
  const config = loadConfig();
  const service = await startStockService(config);
  const url = displayUrl(config.host, service.port);
  service.logger.info(`stock service listening on ${url}; docs at ${url}/swagger`, { url, docs: `${url}/swagger`, database: redactedUrl(config.databaseUrl) });
  return service;
});
