import type { OrderRepository, PaymentProvider, ProductCatalog, SalesTransaction } from '@sales/domain';
import type { OrderUseCases } from '@sales/http-koa';
import { serviceTokens } from '@platform/http/service';
import type { InjectionToken } from 'tsyringe';

/** Every service's tokens (the platform's), and sales' own. */
export const Tokens = {
  ...serviceTokens<SalesTransaction>(),
  /** Committed orders, for reads outside any unit of work. */
  OrderRepository: Symbol('OrderRepository') as InjectionToken<OrderRepository>,
  /** Stock's catalogue, over HTTP. */
  ProductCatalog: Symbol('ProductCatalog') as InjectionToken<ProductCatalog & { close(): Promise<void> }>,
  /** The payment provider: Stripe's API through its SDK, or PAYMENTS_OFF. */
  PaymentProvider: Symbol('PaymentProvider') as InjectionToken<PaymentProvider>,
  /** The use cases the orders router serves. */
  OrderUseCases: Symbol('OrderUseCases') as InjectionToken<OrderUseCases>,
};
