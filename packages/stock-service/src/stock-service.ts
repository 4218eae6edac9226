import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'winston';
import type { StockServiceConfig } from './config';
import { createContainer } from './container';
import { openPersistence } from './persistence';
import { Tokens } from './tokens';

export interface RunningStockService {
  readonly server: Server;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly logger: Logger;
  close(): Promise<void>;
}

/** Opens the database, applies pending migrations, and listens. */
export async function startStockService(config: StockServiceConfig, options: { logger?: Logger } = {}): Promise<RunningStockService> {
  const persistence = await openPersistence(config.databaseUrl);
  try {
    const container = createContainer(config, persistence, options.logger);
    const logger = container.resolve(Tokens.Logger);
    const applied = await persistence.migrate();
    if (applied.length > 0) logger.info('migrations applied', { migrations: applied });
    const app = container.resolve(Tokens.HttpApp);
    const server = app.listen(config.port);
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    const { port } = server.address() as AddressInfo;
    return {
      server,
      url: `http://127.0.0.1:${port}`,
      logger,
      async close() {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await persistence.close();
      },
    };
  } catch (error) {
    await persistence.close();
    throw error;
  }
}
