import { type RunningServiceContainer, type StartOptions, startServiceContainer } from '@platform/service/container';
import type { SalesServiceConfig } from './config';
import { createContainer } from './container';
import { Tokens } from './tokens';

export type RunningSalesService = RunningServiceContainer;
export type { StartOptions };

/** Starts the sales service as the platform starts every service; `close` also closes its connections to stock. */
export function startSalesService(config: SalesServiceConfig, options: StartOptions = {}): Promise<RunningSalesService> {
  return startServiceContainer(config, {
    create: (logger) => createContainer(config, logger),
    messagingOff: 'messaging is off (AMQP_URL is not set): orders are placed but stay pending; their events wait in the outbox',
    own: (container) => {
      const catalog = container.resolve(Tokens.ProductCatalog);
      return { dispose: () => catalog.close() };
    },
  }, options);
}
