import { loadConfig } from './config';
import { startStockService } from './stock-service';

const config = loadConfig();
const service = await startStockService(config);
service.logger.info('stock service listening', { url: `http://localhost:${new URL(service.url).port}`, database: config.databaseUrl.replace(/\/\/[^@/]*@/, '//***@') });

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    service.logger.info('stopping', { signal });
    service.close().then(
      () => {
        service.logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        service.logger.error('failed to stop cleanly', { error: String(error) });
        process.exit(1);
      },
    );
  });
}
