import { type RunningServer, serve } from '@platform/koa';
import { sweepExpiredIdempotencyKeys } from '@platform/mikro-orm';
import { every, type Logger } from '@platform/runtime';
import type { DependencyContainer } from 'tsyringe';
import type { StockServiceConfig } from './config';
import { createContainer } from './container';
import { Tokens } from './tokens';

const SWEEP_INTERVAL_MS = 60_000;

export interface RunningStockService extends RunningServer {
  readonly logger: Logger;
  readonly container: DependencyContainer;
}

export interface StartOptions {
  readonly logger?: Logger;
  /** Replaces registrations before anything is built (tests slow writes down with it). */
  readonly configure?: (container: DependencyContainer) => void;
}

/** Opens the storage, applies pending migrations, and listens. `close` stops serving, then closes the database. */
export async function startStockService(config: StockServiceConfig, options: StartOptions = {}): Promise<RunningStockService> {
  const container = await createContainer(config, options.logger);
  const database = container.isRegistered(Tokens.Database) ? container.resolve(Tokens.Database) : undefined;
  try {
    options.configure?.(container);
    const logger = container.resolve(Tokens.Logger);
    const applied = (await database?.migrate()) ?? [];
    if (applied.length > 0) logger.info('migrations applied', { migrations: applied });
    const server = await serve(container.resolve(Tokens.HttpApp), config, logger);
    // Expired idempotency records go in batches, out of any request's transaction.
    const sweeper = database && every(SWEEP_INTERVAL_MS, 'idempotency sweep', () => sweepExpiredIdempotencyKeys(database.session, Date.now()), logger);
    let closing: Promise<void> | undefined;
    const close = async () => {
      await server.close();
      await sweeper?.stop();
      await database?.close();
    };
    return { ...server, logger, container, close: () => (closing ??= close()) };
  } catch (error) {
    await database?.close();
    throw error;
  }
}
