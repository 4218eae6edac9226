import { redactedUrl, runMain } from '@platform/runtime';
import { loadConfig } from './config';
import { startStockService } from './stock-service';

await runMain('stock service', async () => {
  const config = loadConfig();
  const service = await startStockService(config);
  const host = !config.host || config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${service.port}`;
  service.logger.info(`stock service listening on ${url}; docs at ${url}/swagger`, { url, docs: `${url}/swagger`, database: redactedUrl(config.databaseUrl) });
  return service;
});
