import { serviceTokens } from '@platform/http/service';
import type {
  ProductRepository,
  ReservationRepository,
  ReturnRepository,
  ShipmentRepository,
  StockMovementRepository,
  StockTransaction,
  WebhookStore,
} from '@stock/domain';
import type { InjectionToken } from 'tsyringe';
import type { StockUseCases } from './use-cases';

/** Every service's tokens (the platform's), and stock's own. */
export const Tokens = {
  ...serviceTokens<StockTransaction>(),
  /** Committed state, for reads outside any unit of work. */
  ProductRepository: Symbol('ProductRepository') as InjectionToken<ProductRepository>,
  ReservationRepository: Symbol('ReservationRepository') as InjectionToken<ReservationRepository>,
  StockMovementRepository: Symbol('StockMovementRepository') as InjectionToken<StockMovementRepository>,
  ShipmentRepository: Symbol('ShipmentRepository') as InjectionToken<ShipmentRepository>,
  ReturnRepository: Symbol('ReturnRepository') as InjectionToken<ReturnRepository>,
  /** Subscriptions and deliveries, beside the outbox they fan out from. */
  WebhookStore: Symbol('WebhookStore') as InjectionToken<WebhookStore>,
  /** Every use case, built once: the HTTP app, the order events' handler and the reservation expiry take it. */
  UseCases: Symbol('StockUseCases') as InjectionToken<StockUseCases>,
};
