import { runMain } from '@platform/runtime';
import { loadConfig } from './config';
import { startStockService } from './stock-service';

await runMain(async () => {
  const config = loadConfig();
  const service = await startStockService(config);
  service.logger.info('stock service listening', { url: `http://localhost:${new URL(service.url).port}`, database: config.databaseUrl.replace(/\/\/[^@/]*@/, '//***@') });
  return service;
});
