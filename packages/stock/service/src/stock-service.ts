import { type CloseOptions, listen, type RunningServer, serve } from '@platform/koa';
import { sweepExpiredIdempotencyKeys } from '@platform/mikro-orm';
import { every, type Logger } from '@platform/runtime';
import { ExpireReservations } from '@stock/application';
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

/**
 * Binds the port first (a port in use stops the start before the database is
 * touched), then opens the storage, checks it takes writes, applies pending
 * migrations and serves. `close` stops serving, then closes the database.
 */
export async function startStockService(config: StockServiceConfig, options: StartOptions = {}): Promise<RunningStockService> {
  const listener = await listen(config);
  let container: DependencyContainer;
  try {
    container = await createContainer(config, options.logger);
  } catch (error) {
    await listener.close();
    throw error;
  }
  const database = container.isRegistered(Tokens.Database) ? container.resolve(Tokens.Database) : undefined;
  try {
    options.configure?.(container);
    const logger = container.resolve(Tokens.Logger);
    if (database && !(await database.canWrite())) throw new Error(`The database ${config.databaseUrl.replace(/\/\/[^@/]*@/, '//***@')} does not take writes (a read-only file or server, or a full disk).`);
    const applied = (await database?.migrate()) ?? [];
    if (applied.length > 0) logger.info('migrations applied', { migrations: applied });
    const server = serve(listener, container.resolve(Tokens.HttpApp), config, logger);
    // Expired idempotency records go in batches, out of any request's transaction.
    const sweeper = database && every(SWEEP_INTERVAL_MS, 'idempotency sweep', () => sweepExpiredIdempotencyKeys(database.session, Date.now()), logger);
    // Held reservations past their time are released here, a batch at a time; safe on any number of instances.
    const expire = container.resolve(ExpireReservations);
    const expiry = every(config.reservationSweepMs, 'reservation expiry', async () => {
      for (let batch = await expire.execute(); batch.length > 0; batch = await expire.execute()) {
        logger.info('reservations expired', { reservations: batch.map((r) => r.id) });
      }
    }, logger);
    let closing: Promise<boolean> | undefined;
    const close = async (closeOptions?: CloseOptions) => {
      const served = await server.close(closeOptions);
      await sweeper?.stop();
      await expiry.stop();
      const closed = (await database?.close()) ?? true;
      if (!closed) logger.warn('the database did not close in time: its connections were abandoned');
      return served && closed;
    };
    return { ...server, logger, container, close: (closeOptions) => (closing ??= close(closeOptions)) };
  } catch (error) {
    await database?.close();
    await listener.close();
    throw error;
  }
}
