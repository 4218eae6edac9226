import { sweepExpiredIdempotencyKeys } from '@platform/persistence';
import { sweepPublishedEvents } from '@platform/kernel';
import { every, type Logger, redactedUrl } from '@platform/runtime';
import type { DependencyContainer } from 'tsyringe';
import { type BackgroundWork, type RunningService, startService } from '../start-service';
import type { ServiceSettings } from './service-settings';
import { createServiceContainer, type ServiceRoot } from './service-container';
import { type OutboxTransaction, ServiceTokens } from './service-tokens';
import { resolveIfRegistered } from './single';

export interface RunningServiceContainer extends RunningService<Logger> {
  readonly container: DependencyContainer;
}

export interface StartOptions {
  readonly logger?: Logger;
  /** Replaces registrations before anything is built (tests slow writes down with it). */
  readonly configure?: (container: DependencyContainer) => void;
}

/** What a service runs and holds beyond what every service does, taken from its container once it is configured. */
export interface OwnWork {
  /** Background work of its own, started with the sweeps. */
  readonly background?: () => BackgroundWork[];
  /** Closes what it holds (clients), after the broker connection. */
  readonly dispose?: () => Promise<void>;
}

/** Expired idempotency records (and inbox entries) go in batches, out of any request's transaction. */
function idempotencySweep(config: ServiceSettings, container: DependencyContainer, logger: Logger) {
  const database = resolveIfRegistered(container, ServiceTokens.Database);
  if (!database) return [];
  const sweep = () => sweepExpiredIdempotencyKeys(database.session, Date.now());
  return [every(config.retentionSweepMs, 'idempotency sweep', sweep, logger)];
}

/** Published events are kept OUTBOX_RETENTION_SECONDS for inspection, then deleted in batches. */
function outboxSweep(config: ServiceSettings, container: DependencyContainer, logger: Logger) {
  const outbox = container.resolve(ServiceTokens.OutboxStore);
  const sweep = () => sweepPublishedEvents(outbox, config.outboxRetentionSeconds * 1000);
  return every(config.retentionSweepMs, 'outbox sweep', sweep, logger);
}

/**
 * Starts a service as the platform starts every service (startService), from
 * its container: with AMQP_URL, it relays the outbox and consumes its queue;
 * it sweeps idempotency records and published events. `close` stops serving,
 * then the background work, then the broker connection and what the service
 * holds, then the database.
 */
export async function startServiceContainer<Tx extends OutboxTransaction>(
  config: ServiceSettings,
  root: ServiceRoot<Tx>,
  options: StartOptions = {},
  own: (container: DependencyContainer) => OwnWork = () => ({}),
): Promise<RunningServiceContainer> {
  let container!: DependencyContainer;
  const running = await startService(config, async () => {
    container = await createServiceContainer(config, root, options.logger);
    options.configure?.(container);
    const logger = container.resolve(ServiceTokens.Logger);
    const database = resolveIfRegistered(container, ServiceTokens.Database);
    const ownWork = own(container);
    const messaging = resolveIfRegistered(container, ServiceTokens.Messaging);
    if (!messaging) logger.info(root.messaging.off);
    return {
      logger,
      http: container.resolve(ServiceTokens.HttpApp),
      ...(database && { database, databaseName: redactedUrl(config.databaseUrl) }),
      startBackground: () => [
        ...idempotencySweep(config, container, logger),
        ...(ownWork.background?.() ?? []),
        outboxSweep(config, container, logger),
        ...(messaging ? [messaging.start()] : []),
      ],
      dispose: async () => {
        await messaging?.stop();
        await ownWork.dispose?.();
      },
    };
  });
  return { ...running, container };
}
