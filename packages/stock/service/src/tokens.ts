import type { Clock, UnitOfWork } from '@platform/kernel';
import type { AccessControl, HttpApp } from '@platform/koa';
import type { MessagingHandle } from '@platform/messaging-rabbitmq';
import type { Database } from '@platform/mikro-orm';
import type { OutboxStore } from '@platform/outbox';
import type { Logger } from '@platform/runtime';
import type { ProductRepository, ReservationRepository, StockMovementRepository, StockTransaction } from '@stock/domain';
import type { InjectionToken } from 'tsyringe';

export const Tokens = {
  Logger: Symbol('Logger') as InjectionToken<Logger>,
  /** Registered only when the service runs on SQLite or PostgreSQL. */
  Database: Symbol('Database') as InjectionToken<Database>,
  UnitOfWork: Symbol('UnitOfWork') as InjectionToken<UnitOfWork<StockTransaction>>,
  Clock: Symbol('Clock') as InjectionToken<Clock>,
  /** Committed state, for reads outside any unit of work. */
  ProductRepository: Symbol('ProductRepository') as InjectionToken<ProductRepository>,
  ReservationRepository: Symbol('ReservationRepository') as InjectionToken<ReservationRepository>,
  StockMovementRepository: Symbol('StockMovementRepository') as InjectionToken<StockMovementRepository>,
  /** The relay's side of the outbox. */
  OutboxStore: Symbol('OutboxStore') as InjectionToken<OutboxStore>,
  /** Registered only when AMQP_URL is set. */
  Messaging: Symbol('Messaging') as InjectionToken<MessagingHandle>,
  /** Token checks, or none when AUTH_ISSUER is not set. */
  Access: Symbol('Access') as InjectionToken<AccessControl>,
  HttpApp: Symbol('HttpApp') as InjectionToken<HttpApp>,
};
