import { type RunningServiceContainer, type StartOptions, startServiceContainer } from '@platform/service/container';
import type { Logger } from '@platform/runtime';
import type { DependencyContainer } from 'tsyringe';
import type { SalesServiceConfig } from './config';
import { createContainer } from './container';
import { Tokens } from './tokens';

export type RunningSalesService = RunningServiceContainer;
export type { StartOptions };

const MESSAGING_OFF =
  'messaging is off (AMQP_URL is not set): orders are placed but stay pending; their events wait in the outbox';

/** Starts the sales service as the platform starts every service; `close` also closes its connections to stock. */
export function startSalesService(
  config: SalesServiceConfig,
  options: StartOptions = {},
): Promise<RunningSalesService> {
  const start = {
    create: (logger?: Logger) => createContainer(config, logger),
    messagingOff: MESSAGING_OFF,
    own: (container: DependencyContainer) => {
      const catalog = container.resolve(Tokens.ProductCatalog);
      return { dispose: () => catalog.close() };
    },
  };
  return startServiceContainer(config, start, options);
}
