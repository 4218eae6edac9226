import { type RunningServiceContainer, type StartOptions, startServiceContainer } from '@platform/http/service';
import type { SalesServiceConfig } from './config';
import { salesRoot } from './container';
import { Tokens } from './tokens';

export type RunningSalesService = RunningServiceContainer;
export type { StartOptions };

/** Starts the sales service as the platform starts every service; `close` also closes its connections to stock. */
export function startSalesService(
  config: SalesServiceConfig,
  options: StartOptions = {},
): Promise<RunningSalesService> {
  return startServiceContainer(config, salesRoot(config), options, (container) => {
    const catalog = container.resolve(Tokens.ProductCatalog);
    return { dispose: () => catalog.close() };
  });
}
