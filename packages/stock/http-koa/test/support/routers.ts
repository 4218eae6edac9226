import { Scopes } from '@commerce/contracts';
import { type AccessControl, type HttpMetrics, operationsRouter } from '@platform/http';
import type { WebhookSubscriptions } from '@stock/application';
import {
  locationsRouter,
  type LocationUseCases,
  productImportsRouter,
  type ProductImportUseCases,
  productsRouter,
  type ProductUseCases,
  reservationsRouter,
  type ReservationUseCases,
  returnsRouter,
  type ReturnUseCases,
  shipmentsRouter,
  type ShipmentUseCases,
  stockTransfersRouter,
  type TransferUseCases,
  webhookSubscriptionsRouter,
} from '@stock/http-koa';

/** Every router the stock service mounts (the platform's operations and the webhook subscriptions' too), unwired. */
export function everyStockRouter(access: AccessControl) {
  return [
    productImportsRouter({ useCases: {} as ProductImportUseCases, access, logger: console }),
    productsRouter({ useCases: {} as ProductUseCases, access, logger: console }),
    reservationsRouter({ useCases: {} as ReservationUseCases, access }),
    locationsRouter({ useCases: {} as LocationUseCases, access }),
    stockTransfersRouter({ useCases: {} as TransferUseCases, access }),
    shipmentsRouter({ useCases: {} as ShipmentUseCases, access }),
    returnsRouter({ useCases: {} as ReturnUseCases, access }),
    operationsRouter({ isReady: async () => true, metrics: {} as HttpMetrics }),
    webhookSubscriptionsRouter({ subscriptions: {} as WebhookSubscriptions, access, scope: Scopes.stock.webhooks }),
  ];
}
