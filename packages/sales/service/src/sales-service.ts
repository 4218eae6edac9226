import { type RunningServiceContainer, type StartOptions, startServiceContainer } from '@platform/http/service';
import { PerformPaymentWork } from '@sales/application';
import { paymentRefusalCounter } from '@sales/http-koa';
import type { DependencyContainer } from 'tsyringe';
import type { SalesServiceConfig } from './config';
import { paymentsAreOn, salesRoot } from './container';
import { paymentWorker } from './payment-worker';
import { Tokens } from './tokens';

export type RunningSalesService = RunningServiceContainer;
export type { StartOptions };

const PAYMENTS_OFF_LINE =
  'payments are off (PAYMENTS_API_KEY and PAYMENTS_WEBHOOK_SECRET are not set): orders are held but never authorised, so never paid; webhooks answer 503';

/** The payment worker, when payments are on: the calls orders owe the provider. */
function paymentWork(config: SalesServiceConfig, container: DependencyContainer) {
  const logger = container.resolve(Tokens.Logger);
  if (!paymentsAreOn(config)) {
    logger.warn(PAYMENTS_OFF_LINE);
    return [];
  }
  return [
    paymentWorker({
      unitOfWork: container.resolve(Tokens.UnitOfWork),
      performPaymentWork: container.resolve(PerformPaymentWork),
      clock: container.resolve(Tokens.Clock),
      logger,
      pollMs: config.paymentsPollMs,
      refusals: paymentRefusalCounter(container.resolve(Tokens.HttpApp).metrics.registry),
    }),
  ];
}

/**
 * Starts the sales service as the platform starts every service, with the payment worker; `close` also closes its
 * connections to stock.
 */
export function startSalesService(
  config: SalesServiceConfig,
  options: StartOptions = {},
): Promise<RunningSalesService> {
  return startServiceContainer(config, salesRoot(config), options, (container) => {
    const catalog = container.resolve(Tokens.ProductCatalog);
    return { background: () => paymentWork(config, container), dispose: () => catalog.close() };
  });
}
