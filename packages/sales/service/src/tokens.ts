import type { Clock, UnitOfWork } from '@platform/kernel';
import type { AccessControl, HttpApp } from '@platform/koa';
import type { MessagingHandle } from '@platform/messaging-rabbitmq';
import type { Database } from '@platform/mikro-orm';
import type { OutboxStore } from '@platform/outbox';
import type { Logger } from '@platform/runtime';
import type { OrderRepository, ProductCatalog, SalesTransaction } from '@sales/domain';
import type { InjectionToken } from 'tsyringe';

export const Tokens = {
  Logger: Symbol('Logger') as InjectionToken<Logger>,
  /** Registered only when the service runs on SQLite or PostgreSQL. */
  Database: Symbol('Database') as InjectionToken<Database>,
  UnitOfWork: Symbol('UnitOfWork') as InjectionToken<UnitOfWork<SalesTransaction>>,
  Clock: Symbol('Clock') as InjectionToken<Clock>,
  /** Committed orders, for reads outside any unit of work. */
  OrderRepository: Symbol('OrderRepository') as InjectionToken<OrderRepository>,
  /** The relay's side of the outbox. */
  OutboxStore: Symbol('OutboxStore') as InjectionToken<OutboxStore>,
  /** Stock's catalogue, over HTTP. */
  ProductCatalog: Symbol('ProductCatalog') as InjectionToken<ProductCatalog & { close(): Promise<void> }>,
  Access: Symbol('Access') as InjectionToken<AccessControl>,
  /** Registered only when AMQP_URL is set. */
  Messaging: Symbol('Messaging') as InjectionToken<MessagingHandle>,
  HttpApp: Symbol('HttpApp') as InjectionToken<HttpApp>,
};
