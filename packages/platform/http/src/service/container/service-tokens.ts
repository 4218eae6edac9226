import type { Clock, Outbox, OutboxStore, UnitOfWork } from '@platform/kernel';
import type { AccessControl, HttpApp } from '../../index';
import type { MessagingHandle } from '@platform/messaging';
import type { Database } from '@platform/persistence';
import type { Logger } from '@platform/runtime';
import type { InjectionToken } from 'tsyringe';

/** What a unit of work hands its work: at least the outbox, which the relay's wake watches. */
export interface OutboxTransaction {
  readonly outbox: Outbox;
}

/** The registrations every service has; a service's own tokens extend them (serviceTokens). */
export const ServiceTokens = {
  Logger: Symbol('Logger') as InjectionToken<Logger>,
  /** Registered only when the service runs on SQLite or PostgreSQL. */
  Database: Symbol('Database') as InjectionToken<Database>,
  UnitOfWork: Symbol('UnitOfWork') as InjectionToken<UnitOfWork<OutboxTransaction>>,
  Clock: Symbol('Clock') as InjectionToken<Clock>,
  /** The relay's side of the outbox. */
  OutboxStore: Symbol('OutboxStore') as InjectionToken<OutboxStore>,
  /** Registered only when AMQP_URL is set. */
  Messaging: Symbol('Messaging') as InjectionToken<MessagingHandle>,
  /** Token checks, or none when AUTH_ISSUER is not set. */
  Access: Symbol('Access') as InjectionToken<AccessControl>,
  HttpApp: Symbol('HttpApp') as InjectionToken<HttpApp>,
};

/** The shared tokens, with the unit of work typed by the service's own transaction. */
export function serviceTokens<Tx extends OutboxTransaction>() {
  return { ...ServiceTokens, UnitOfWork: ServiceTokens.UnitOfWork as InjectionToken<UnitOfWork<Tx>> };
}
