import { displayUrl, redactedUrl, runMain } from '@platform/runtime';
import { loadConfig } from './config';
import { startSalesService } from './sales-service';

await runMain('sales service', async () => {
  const config = loadConfig();
  const service = await startSalesService(config);
  const url = displayUrl(config.host, service.port);
  service.logger.info(`sales service listening on ${url}; docs at ${url}/swagger`, { url, docs: `${url}/swagger`, database: redactedUrl(config.databaseUrl), stock: config.stockUrl });
  return service;
});
