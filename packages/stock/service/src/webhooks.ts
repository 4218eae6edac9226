import { Scopes } from '@commerce/contracts';
import type { AccessControl, HttpApp } from '@platform/http';
import type { Logger } from '@platform/runtime';
import { single } from '@platform/http/service';
import {
  levelChangedFromLedger,
  parseSecretsKey,
  SecretBox,
  undiciSender,
  WebhookDelivery,
  type WebhookSender,
  WebhookSubscriptions,
} from '@stock/application';
import { webhookSubscriptionsRouter } from '@stock/http-koa';
import type { ProductRepository, StockMovement, StockMovementRepository } from '@stock/domain';
import type { DependencyContainer, InjectionToken } from 'tsyringe';
import type { StockServiceConfig } from './config';
import { Tokens } from './tokens';

/** How much of a receiver's answer is read, for the attempt's error. */
const MAX_ANSWER_BYTES = 16 * 1024;

export const WebhookTokens = {
  Sender: Symbol('WebhookSender') as InjectionToken<WebhookSender>,
  Subscriptions: Symbol('WebhookSubscriptions') as InjectionToken<WebhookSubscriptions>,
  Delivery: Symbol('WebhookDelivery') as InjectionToken<WebhookDelivery>,
};

export const webhooksOn = (config: StockServiceConfig) => config.webhooks === 'on';

/**
 * The subscription API and the delivery worker, when WEBHOOKS=on. The key is read here, at start-up: a missing or
 * malformed WEBHOOK_SECRETS_KEY stops the service with one line saying how to make one.
 */
export function registerWebhooks(container: DependencyContainer, config: StockServiceConfig): void {
  if (!webhooksOn(config)) return;
  const secrets = new SecretBox(parseSecretsKey(config.webhookSecretsKey));
  const allowPrivateTargets = config.webhookAllowPrivateTargets === 'true';
  single(container, WebhookTokens.Sender, () =>
    undiciSender({
      allowPrivateTargets,
      connectTimeoutMs: config.webhookConnectTimeoutMs,
      answerTimeoutMs: config.webhookAnswerTimeoutMs,
      maxAnswerBytes: MAX_ANSWER_BYTES,
    }),
  );
  single(
    container,
    WebhookTokens.Subscriptions,
    (c) =>
      new WebhookSubscriptions({
        store: c.resolve(Tokens.WebhookStore),
        secrets,
        allowPrivateTargets,
        replaySource: ledgerReplay(c.resolve(Tokens.StockMovementRepository), c.resolve(Tokens.ProductRepository)),
      }),
  );
  single(
    container,
    WebhookTokens.Delivery,
    (c) =>
      new WebhookDelivery({
        store: c.resolve(Tokens.WebhookStore),
        secrets,
        sender: c.resolve(WebhookTokens.Sender),
        logger: c.resolve(Tokens.Logger),
        // A lease outlives the longest attempt, so no second worker sends a delivery still in flight.
        leaseMs: 2 * (config.webhookConnectTimeoutMs + config.webhookAnswerTimeoutMs) + 10_000,
      }),
  );
}

/** How many movements a replay reads from the ledger at a time. */
const LEDGER_PAGE = 1000;

/**
 * A replay by product and sequence rebuilds stock.level.changed from the ledger (movements with sequence >= since),
 * with the ids they were first written with: so it sends what the ledger holds, even movements made before the
 * subscription existed. It reads the product's ledger from its first movement, since each event tells its location's
 * level after the movement, the sum of the deltas before it.
 */
export function ledgerReplay(movements: StockMovementRepository, products: ProductRepository) {
  return async (productId: number | string, sinceSequence: number) => {
    const id = Number(productId);
    if (!Number.isSafeInteger(id) || id < 1) return [];
    const ledger: StockMovement[] = [];
    for (let after = 0; ;) {
      const page = await movements.list(id, { after, limit: LEDGER_PAGE });
      ledger.push(...page);
      if (page.length < LEDGER_PAGE) break;
      after = page.at(-1)!.id;
    }
    const sku = (await products.findById(id))?.sku ?? null;
    return levelChangedFromLedger(id, sku, ledger, sinceSequence);
  };
}

/** Mounts /api/webhook-subscriptions, guarded by webhooks:manage. */
export function routeWebhooks(http: HttpApp, container: DependencyContainer, access: AccessControl): HttpApp {
  if (container.isRegistered(WebhookTokens.Subscriptions))
    http.route(
      webhookSubscriptionsRouter({
        subscriptions: container.resolve(WebhookTokens.Subscriptions),
        access,
        scope: Scopes.stock.webhooks,
      }),
    );
  return http;
}

/** The worker, started with the service's background work; and its connections, closed after it. */
export function webhookWork(container: DependencyContainer, config: StockServiceConfig, logger: Logger) {
  if (!container.isRegistered(WebhookTokens.Delivery)) return { background: () => [], dispose: async () => {} };
  return {
    // Started after the migrations, with the rest of the background work.
    background: () => {
      logger.info('webhooks are on: the outbox is delivered to subscribers', {
        allowPrivateTargets: config.webhookAllowPrivateTargets === 'true',
      });
      const delivery = container.resolve(WebhookTokens.Delivery);
      return [
        delivery.start(config.webhookPollMs),
        delivery.startSweeping(config.retentionSweepMs, config.webhookRetentionMs),
      ];
    },
    dispose: () => container.resolve(WebhookTokens.Sender).close(),
  };
}
