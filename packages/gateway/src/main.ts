import { displayUrl, runMain } from '@platform/runtime';
import { loadConfig } from './config';
import { startGateway } from './gateway-service';

await runMain('gateway', async () => {
  const config = loadConfig();
  const service = await startGateway(config);
  const url = displayUrl(config.host, service.port);
  service.logger.info(`gateway listening on ${url}; docs at ${url}/swagger`, { url, docs: `${url}/swagger`, stock: config.stockUrl, sales: config.salesUrl, identity: config.identityUrl });
  return service;
});
