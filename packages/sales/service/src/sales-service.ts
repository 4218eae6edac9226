import { type RunningService, startService } from '@platform/service';
import { sweepExpiredIdempotencyKeys } from '@platform/mikro-orm';
import { sweepPublishedEvents } from '@platform/outbox';
import { every, type Logger, redactedUrl } from '@platform/runtime';
import type { DependencyContainer } from 'tsyringe';
import type { SalesServiceConfig } from './config';
import { createContainer } from './container';
import { Tokens } from './tokens';

export interface RunningSalesService extends RunningService<Logger> {
  readonly container: DependencyContainer;
}

export interface StartOptions {
  readonly logger?: Logger;
  /** Replaces registrations before anything is built. */
  readonly configure?: (container: DependencyContainer) => void;
}

/** Starts the sales service as the platform starts every service; `close` also closes its connections to stock. */
export async function startSalesService(config: SalesServiceConfig, options: StartOptions = {}): Promise<RunningSalesService> {
  let container!: DependencyContainer;
  const running = await startService(config, async () => {
    container = await createContainer(config, options.logger);
    options.configure?.(container);
    const logger = container.resolve(Tokens.Logger);
    const database = container.isRegistered(Tokens.Database) ? container.resolve(Tokens.Database) : undefined;
    const catalog = container.resolve(Tokens.ProductCatalog);
    const messaging = container.isRegistered(Tokens.Messaging) ? container.resolve(Tokens.Messaging) : undefined;
    if (!messaging) logger.info('messaging is off (AMQP_URL is not set): orders are placed but stay pending; their events wait in the outbox');
    return {
      logger,
      http: container.resolve(Tokens.HttpApp),
      ...(database && { database, databaseName: redactedUrl(config.databaseUrl) }),
      startBackground: () => {
        // Expired idempotency records (and inbox entries) go in batches, out of any request's transaction.
        const sweeper = database && every(config.retentionSweepMs, 'idempotency sweep', () => sweepExpiredIdempotencyKeys(database.session, Date.now()), logger);
        // Published events are kept OUTBOX_RETENTION_SECONDS for inspection, then deleted in batches.
        const outbox = container.resolve(Tokens.OutboxStore);
        const outboxSweep = every(config.retentionSweepMs, 'outbox sweep', () => sweepPublishedEvents(outbox, config.outboxRetentionSeconds * 1000), logger);
        return [...(sweeper ? [sweeper] : []), outboxSweep, ...(messaging ? [messaging.start()] : [])];
      },
      dispose: async () => {
        await messaging?.stop();
        await catalog.close();
      },
    };
  });
  return { ...running, container };
}
