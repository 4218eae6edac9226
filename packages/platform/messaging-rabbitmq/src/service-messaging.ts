import type { OutboxStore } from '@platform/outbox';
import type { Registry } from 'prom-client';
import { Broker, type MessagingLogger } from './broker';
import { type ConsumableEvent, type Decoded, type Delivery, EventConsumer } from './event-consumer';
import { EventPublisher } from './event-publisher';
import { MessagingMetrics } from './messaging-metrics';
import { OutboxRelay, type RelaySettings } from './outbox-relay';
import { deadLetterQueueOf } from './topology';

export interface ServiceMessagingOptions<E extends ConsumableEvent> {
  readonly url: string;
  /** The service's name: its queue, its dead-letter queue's routing key, and its connection's name (with the process id). */
  readonly service: string;
  /** The event types its queue is bound to. */
  readonly consumes: readonly string[];
  readonly deliveryLimit?: number;
  readonly concurrency?: number;
  readonly outbox: OutboxStore;
  readonly relay?: RelaySettings;
  readonly decode: (body: unknown) => Decoded<E>;
  readonly handle: (event: E, delivery: Delivery) => Promise<string>;
  readonly logger: MessagingLogger;
  /** The service's Prometheus registry, for the messaging metrics. */
  readonly registry?: Registry;
}

export interface ServiceMessaging {
  readonly broker: Broker;
  readonly relay: OutboxRelay;
  /** Whether the broker answers right now (readiness reports it). */
  isConnected(): boolean;
  /** Stops consuming and relaying, then closes the connection. */
  stop(): Promise<void>;
}

/**
 * Everything a service does on the broker, started together: one connection,
 * the relay that publishes its outbox, and the consumer of its queue. Nothing
 * waits for the broker: while it is away the service keeps serving, events
 * wait in the outbox, and the connection comes back by itself.
 */
export function startServiceMessaging<E extends ConsumableEvent>(options: ServiceMessagingOptions<E>): ServiceMessaging {
  const { url, service, logger } = options;
  const broker = new Broker({ url, connectionName: `${service} (pid ${process.pid})`, logger });
  const deadLetterQueue = deadLetterQueueOf(service);
  const metrics = options.registry
    ? new MessagingMetrics(options.registry, {
        outboxBacklog: () => options.outbox.countUnpublished(),
        deadLetters: async () => (broker.isConnected ? (await broker.connection.queueDeclare({ queue: deadLetterQueue, passive: true })).messageCount : undefined),
        brokerConnected: () => broker.isConnected,
      })
    : undefined;
  const publisher = new EventPublisher(broker);
  const relay = new OutboxRelay({ store: options.outbox, publisher, logger, ...(metrics && { metrics }), ...options.relay }).start();
  const consumer = new EventConsumer<E>({
    broker,
    spec: { queue: service, routingKeys: options.consumes, ...(options.deliveryLimit !== undefined && { deliveryLimit: options.deliveryLimit }) },
    decode: options.decode,
    handle: options.handle,
    logger,
    ...(metrics && { metrics }),
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
  }).start();
  return {
    broker,
    relay,
    isConnected: () => broker.isConnected,
    async stop() {
      await Promise.all([consumer.stop(), relay.stop()]);
      await publisher.close().catch(() => undefined);
      await broker.close();
    },
  };
}

export type { MessagingLogger };
