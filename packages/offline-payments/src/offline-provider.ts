import { createHttpApp, type HttpApp, problemsFor } from '@platform/http';
import { type RunningService, startService } from '@platform/http/service';
import { createLogger, type Logger } from '@platform/runtime';
import { stripeApi } from './api/stripe-api';
import type { PaymentsConfig } from './config';
import { PaymentLedger } from './ledger/payment-ledger';
import { eventPublisher } from './webhooks/event-publisher';
import { httpAttempt } from './webhooks/http-attempt';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher';
import { WebhookEndpoints } from './webhooks/webhook-endpoints';

/**
 * The Stripe API version this provider's answers and events follow: that of the OpenAPI description its tests check
 * them against (testing/stripe-openapi-subset.json). A request's Stripe-Version does not change them.
 */
export const API_VERSION = '2026-07-29.dahlia';

export interface StartOptions {
  readonly logger?: Logger;
}

/** The provider's parts: its state in memory, the API over it, the webhooks it sends. */
function assemble(config: PaymentsConfig, logger: Logger): { http: HttpApp; dispatcher: WebhookDispatcher } {
  const endpoints = new WebhookEndpoints(API_VERSION);
  const dispatcher = new WebhookDispatcher({
    attempt: httpAttempt(config.deliveryTimeoutMs),
    retryFirstMs: config.retryFirstMs,
    retryMaxMs: config.retryMaxMs,
    chaos: config.chaos,
    chaosDelayMs: config.chaosDelayMs,
    onRetry: (delivery, attempts, waitMs) =>
      logger.info('webhook not delivered; retrying', {
        event: delivery.eventId,
        type: delivery.eventType,
        url: delivery.endpoint.url,
        attempts,
        retryInMs: waitMs,
      }),
  });
  const ledger = new PaymentLedger(eventPublisher({ endpoints, dispatcher, apiVersion: API_VERSION }));
  const http = createHttpApp({ logger, toProblem: problemsFor<never>({}) });
  http.metrics.addGauge(
    'payments_webhook_deliveries',
    'Webhook deliveries (each copy of a duplicated event) by state: waiting (to be sent, or retrying) or delivered (a 2xx)',
    'state',
    () => ({ ...dispatcher.counts }),
  );
  http.app.use(stripeApi({ apiKey: config.apiKey, apiVersion: API_VERSION, ledger, endpoints }));
  return { http, dispatcher };
}

/**
 * The offline provider as the platform starts every service (bind, serve, a
 * bounded stop): no database, its state lives in this process and goes with
 * it. The webhook deliveries are its background work, stopped after serving.
 */
export async function startOfflineProvider(
  config: PaymentsConfig,
  options: StartOptions = {},
): Promise<RunningService<Logger>> {
  const logger = options.logger ?? createLogger('payments', config.logLevel, config.logFormat);
  return startService(config, async () => {
    const { http, dispatcher } = assemble(config, logger);
    return { logger, http, startBackground: () => [{ stop: async () => dispatcher.stop() }] };
  });
}
