import { createLogger } from '@platform/runtime';
import { loadConfig, startStockService } from '@stock/service';

/** The stock service itself, as `pnpm start` runs it, with access logs off (a benchmark is not a log test). */
const service = await startStockService(loadConfig(), { logger: createLogger('stock-service', 'warn') });
console.log(JSON.stringify({ message: 'listening', port: Number(new URL(service.url).port) }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void service.close().then(() => process.exit(0)));
