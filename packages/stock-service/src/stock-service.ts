import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'winston';
import type { StockServiceConfig } from './config';
import { createContainer } from './container';
import { openPersistence, type Persistence } from './persistence';
import { Tokens } from './tokens';

export interface RunningStockService {
  readonly server: Server;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly logger: Logger;
  /**
   * Graceful stop: readiness turns 503, then (after shutdownDelayMs) the server
   * stops accepting connections, in-flight requests finish (connections still
   * busy after shutdownGraceMs are cut), idle keep-alive connections close, and
   * the database closes. Safe to call more than once.
   */
  close(): Promise<void>;
}

export interface StartOptions {
  readonly logger?: Logger;
  /** Storage already opened by the caller (tests use it to slow writes down). */
  readonly persistence?: Persistence;
}

/** Opens the database, applies pending migrations, and listens. */
export async function startStockService(config: StockServiceConfig, options: StartOptions = {}): Promise<RunningStockService> {
  const persistence = options.persistence ?? (await openPersistence(config.databaseUrl, { idempotencyTtlMs: config.idempotencyTtlSeconds * 1000, poolSize: config.dbPoolSize }));
  try {
    const container = createContainer(config, persistence, options.logger);
    const logger = container.resolve(Tokens.Logger);
    const applied = await persistence.migrate();
    if (applied.length > 0) logger.info('migrations applied', { migrations: applied });
    const stockApp = container.resolve(Tokens.HttpApp);
    const server = stockApp.app.listen(config.port);
    server.requestTimeout = config.requestTimeoutMs;
    server.headersTimeout = Math.min(config.headersTimeoutMs, config.requestTimeoutMs);
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
    const { port } = server.address() as AddressInfo;

    let closing: Promise<void> | undefined;
    const stop = async () => {
      stockApp.drain();
      if (config.shutdownDelayMs > 0) await sleep(config.shutdownDelayMs);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = new AbortController();
      const graceOver = sleep(config.shutdownGraceMs, 'grace over' as const, { signal: grace.signal }).catch(() => 'closed' as const);
      const first = await Promise.race([closed.then(() => 'closed' as const), graceOver]);
      grace.abort();
      if (first === 'grace over') {
        logger.warn('shutdown grace period over: closing the remaining connections', { graceMs: config.shutdownGraceMs });
        server.closeAllConnections();
        await closed;
      }
      await persistence.close();
    };
    return {
      server,
      url: `http://127.0.0.1:${port}`,
      logger,
      close: () => (closing ??= stop()),
    };
  } catch (error) {
    await persistence.close();
    throw error;
  }
}
