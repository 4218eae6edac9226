import { type RunningServiceContainer, type StartOptions, startServiceContainer } from '@platform/http/service';
import { every } from '@platform/runtime';
import { PerformPaymentWork, RejectUnansweredOrders } from '@sales/application';
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
 * The orders stock has not answered in time, rejected every ORDER_ANSWER_SWEEP_MS; only with messaging on, since
 * without it every order stays pending by design (its event waits in the outbox).
 */
function unansweredOrders(config: SalesServiceConfig, container: DependencyContainer) {
  if (!config.amqpUrl) return [];
  const logger = container.resolve(Tokens.Logger);
  const rejectUnanswered = container.resolve(RejectUnansweredOrders);
  const round = async () => {
    const rejected = await rejectUnanswered.execute();
    if (rejected > 0)
      logger.warn('stock did not answer some orders in time: rejected (stock-unanswered), and cancelled at stock', {
        rejected,
        answerTimeoutSeconds: config.orderAnswerTimeoutSeconds,
      });
  };
  return [every(config.orderAnswerSweepMs, 'the sweep of orders stock has not answered', round, logger)];
}

/**
 * Starts the sales service as the platform starts every service, with the payment worker and the sweep of orders stock
 * has not answered; `close` also closes its connections to stock.
 */
export function startSalesService(
  config: SalesServiceConfig,
  options: StartOptions = {},
): Promise<RunningSalesService> {
  return startServiceContainer(config, salesRoot(config), options, (container) => {
    const catalog = container.resolve(Tokens.ProductCatalog);
    return {
      background: () => [...paymentWork(config, container), ...unansweredOrders(config, container)],
      dispose: () => catalog.close(),
    };
  });
}
