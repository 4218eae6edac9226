import { type RunningService, startService } from '@platform/service';
import { sweepExpiredIdempotencyKeys } from '@platform/mikro-orm';
import { sweepPublishedEvents } from '@platform/outbox';
import { every, type Logger, redactedUrl } from '@platform/runtime';
import { ExpireReservations } from '@stock/application';
import type { DependencyContainer } from 'tsyringe';
import type { StockServiceConfig } from './config';
import { createContainer } from './container';
import { Tokens } from './tokens';

export interface RunningStockService extends RunningService<Logger> {
  readonly container: DependencyContainer;
}

export interface StartOptions {
  readonly logger?: Logger;
  /** Replaces registrations before anything is built (tests slow writes down with it). */
  readonly configure?: (container: DependencyContainer) => void;
}

/**
 * Binds the port first, opens the storage, checks it takes writes, applies
 * pending migrations and serves (the platform's startService); then sweeps
 * expired idempotency records, reservations and published events, and, with
 * AMQP_URL, relays the outbox and consumes sales' events. `close` stops
 * serving, then the background work, then the broker connection, then the database.
 */
export async function startStockService(config: StockServiceConfig, options: StartOptions = {}): Promise<RunningStockService> {
  let container!: DependencyContainer;
  const running = await startService(config, async () => {
    container = await createContainer(config, options.logger);
    options.configure?.(container);
    const logger = container.resolve(Tokens.Logger);
    const database = container.isRegistered(Tokens.Database) ? container.resolve(Tokens.Database) : undefined;
    const messaging = container.isRegistered(Tokens.Messaging) ? container.resolve(Tokens.Messaging) : undefined;
    if (!messaging) logger.info('messaging is off (AMQP_URL is not set): order events are neither consumed nor published; they wait in the outbox');
    return {
      logger,
      http: container.resolve(Tokens.HttpApp),
      ...(database && { database, databaseName: redactedUrl(config.databaseUrl) }),
      startBackground: () => {
        // Expired idempotency records go in batches, out of any request's transaction.
        const sweeper = database && every(config.retentionSweepMs, 'idempotency sweep', () => sweepExpiredIdempotencyKeys(database.session, Date.now()), logger);
        // Held reservations past their time are released here, a batch at a time; safe on any number of instances.
        const expire = container.resolve(ExpireReservations);
        const expiry = every(config.reservationSweepMs, 'reservation expiry', async () => {
          for (let batch = await expire.execute(); batch.length > 0; batch = await expire.execute()) {
            logger.info('reservations expired', { reservations: batch.map((r) => r.id) });
          }
        }, logger);
        // Published events are kept OUTBOX_RETENTION_SECONDS for inspection, then deleted in batches.
        const outbox = container.resolve(Tokens.OutboxStore);
        const outboxSweep = every(config.retentionSweepMs, 'outbox sweep', () => sweepPublishedEvents(outbox, config.outboxRetentionSeconds * 1000), logger);
        return [...(sweeper ? [sweeper] : []), expiry, outboxSweep, ...(messaging ? [messaging.start()] : [])];
      },
      ...(messaging && { dispose: () => messaging.stop() }),
    };
  });
  return { ...running, container };
}
