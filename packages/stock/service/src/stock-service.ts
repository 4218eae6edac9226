import { type RunningServiceContainer, type StartOptions, startServiceContainer } from '@platform/http/service';
import { every, type Logger } from '@platform/runtime';
import type { DependencyContainer } from 'tsyringe';
import type { StockServiceConfig } from './config';
import { stockRoot } from './container';
import { Tokens } from './tokens';
import { webhookWork } from './webhooks';

export type RunningStockService = RunningServiceContainer;
export type { StartOptions };

/** Held reservations past their time are released here, a batch at a time; safe on any number of instances. */
function reservationExpiry(config: StockServiceConfig, container: DependencyContainer, logger: Logger) {
  const expire = container.resolve(Tokens.UseCases).expireReservations;
  return every(
    config.reservationSweepMs,
    'reservation expiry',
    async () => {
      for (let batch = await expire.execute(); batch.length > 0; batch = await expire.execute()) {
        logger.info('reservations expired', { reservations: batch.map((r) => r.id) });
      }
    },
    logger,
  );
}

/**
 * Binds the port first, opens the storage, checks it takes writes, applies
 * pending migrations and serves (the platform's startService); then sweeps
 * expired idempotency records, reservations and published events, and, with
 * AMQP_URL, relays the outbox and consumes sales' events; with WEBHOOKS=on, delivers the outbox to webhook
 * subscribers (with or without AMQP_URL). `close` stops
 * serving, then the background work, then the broker connection, then the database.
 */
export function startStockService(
  config: StockServiceConfig,
  options: StartOptions = {},
): Promise<RunningStockService> {
  return startServiceContainer(config, stockRoot(config), options, (container) => {
    const logger = container.resolve(Tokens.Logger);
    const webhooks = webhookWork(container, config, logger);
    return {
      background: () => [reservationExpiry(config, container, logger), ...webhooks.background()],
      dispose: webhooks.dispose,
    };
  });
}
