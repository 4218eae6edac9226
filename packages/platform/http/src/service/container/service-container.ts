import 'reflect-metadata';
import { accessControl, type HttpApp, type ReadinessChecks, tokenVerifierFor } from '../../index';
import { type ConsumableEvent, type EventHandler, messagingFor, wakingTheRelay } from '@platform/messaging';
import type { Database } from '@platform/persistence';
import { createLogger, type Logger } from '@platform/runtime';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import type { ServiceSettings } from './service-settings';
import { type OutboxTransaction, ServiceTokens, serviceTokens } from './service-tokens';
import { resolveIfRegistered, single } from './single';
import { registerStorage, type ServiceStorage } from './storage';

/** What readiness asks: whether the database answers, and what /health/ready lists. */
export interface Health {
  readonly isReady?: () => Promise<boolean>;
  readonly readinessChecks: () => Promise<ReadinessChecks>;
}

/** The queue a service consumes (named after it), what handles what arrives there, and what stops without it. */
export interface ServiceQueue {
  readonly queue: string;
  readonly handler: (container: DependencyContainer) => EventHandler<ConsumableEvent>;
  /** The line logged when AMQP_URL is not set: what stops working. */
  readonly off: string;
}

/** What a service's composition root says for itself; createServiceContainer wires the rest as every service does. */
export interface ServiceRoot<Tx extends OutboxTransaction> {
  /** The logger's service name, when the caller hands no logger. */
  readonly name: string;
  readonly storage: ServiceStorage<Tx>;
  /** Registers what is the service's own: its use cases and clients. */
  register(container: DependencyContainer): void;
  readonly messaging: ServiceQueue;
  /** The service's HTTP app, given the readiness it should report. */
  http(container: DependencyContainer, health: Health): HttpApp;
}

// A unit of work that wrote events wakes this instance's relay on commit; the relay's polling stays the guarantee.
function wakeTheRelay<Tx extends OutboxTransaction>(container: DependencyContainer): void {
  const token = serviceTokens<Tx>().UnitOfWork;
  const wake = () => container.resolve(ServiceTokens.Messaging).wake();
  container.register(token, { useValue: wakingTheRelay(container.resolve(token), wake) });
}

// Asked when readiness is, after the messaging (which needs the app's metrics registry) exists.
function health(container: DependencyContainer, database: Database | undefined): Health {
  const up = (answers: boolean) => (answers ? 'up' : 'down');
  const broker = () => {
    const messaging = resolveIfRegistered(container, ServiceTokens.Messaging);
    return messaging ? up(messaging.isConnected) : 'off';
  };
  return {
    ...(database && { isReady: () => database.isReady() }),
    readinessChecks: async () => ({ database: database ? up(await database.isReady()) : 'memory', broker: broker() }),
  };
}

function httpApp<Tx extends OutboxTransaction>(container: DependencyContainer, root: ServiceRoot<Tx>): HttpApp {
  const database = resolveIfRegistered(container, ServiceTokens.Database);
  const http = root.http(container, health(container, database));
  if (database) {
    const help = 'Database pool connections by state (used, free, pending acquisitions, max)';
    http.metrics.addGauge('db_pool_connections', help, 'state', () => database.poolStats());
  }
  return http;
}

function registerMessaging(container: DependencyContainer, config: ServiceSettings, { queue, handler }: ServiceQueue) {
  single(container, ServiceTokens.Messaging, (c) => {
    const parts = { service: queue, handler: handler(c), outbox: c.resolve(ServiceTokens.OutboxStore) };
    const registry = c.resolve(ServiceTokens.HttpApp).metrics.registry;
    return messagingFor(config, { ...parts, logger: c.resolve(ServiceTokens.Logger), registry })!;
  });
}

/**
 * Every registration of a service, in one place. Storage is opened here (it
 * is asynchronous); everything else is built on first use. Settings are read
 * from `config` where a registration needs them; the configuration itself is
 * not in the container, since nothing would resolve it.
 */
export async function createServiceContainer<Tx extends OutboxTransaction>(
  config: ServiceSettings,
  root: ServiceRoot<Tx>,
  logger?: Logger,
): Promise<DependencyContainer> {
  const container = rootContainer.createChildContainer();
  const serviceLogger = logger ?? createLogger(root.name, config.logLevel, config.logFormat);
  container.register(ServiceTokens.Logger, { useValue: serviceLogger });
  await registerStorage(container, config, root.storage, serviceLogger);
  if (config.amqpUrl) wakeTheRelay<Tx>(container);
  container.register(ServiceTokens.Clock, { useValue: () => new Date() });
  single(container, ServiceTokens.Access, () => accessControl(tokenVerifierFor(config, serviceLogger), serviceLogger));
  root.register(container);
  if (config.amqpUrl) registerMessaging(container, config, root.messaging);
  single(container, ServiceTokens.HttpApp, (c) => httpApp(c, root));
  return container;
}
