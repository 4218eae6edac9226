import type { OutboxStore } from '@platform/kernel';
import type { Registry } from 'prom-client';
import { Broker, type MessagingLogger } from './broker';
import { type ConsumableEvent, type Decoded, type Delivery, EventConsumer } from './event-consumer';
import { EventPublisher } from './event-publisher';
import { MessagingMetrics } from './messaging-metrics';
import { OutboxRelay, type RelaySettings } from './outbox-relay';
import { deadLetterQueueOf } from './topology';

export interface ServiceMessagingOptions<E extends ConsumableEvent> {
  readonly url: string;
  /**
   * The service's name: its queue, its dead-letter queue's routing key, and its connection's name (with the process
   * id).
   */
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
  /** Whether an event of `type` must reach a queue (EventPublisher); every one must when absent. */
  readonly mustBeRouted?: (type: string) => boolean;
}

/** What a composition root holds of its messaging, whatever events it consumes. */
export interface MessagingHandle {
  /** Whether the broker answers right now (readiness reports it). */
  readonly isConnected: boolean;
  start(): { stop(): Promise<void> };
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Everything a service does on the broker: one connection, the relay that
 * publishes its outbox, and the consumer of its queue. The connection is
 * opened at once, in the background; `start` begins relaying and consuming.
 * Nothing waits for the broker: while it is away the service keeps serving,
 * events wait in the outbox, and the connection comes back by itself.
 */
export class ServiceMessaging<E extends ConsumableEvent = ConsumableEvent> implements MessagingHandle {
  readonly broker: Broker;
  private readonly metrics: MessagingMetrics | undefined;
  private readonly publisher: EventPublisher;
  private relay: OutboxRelay | undefined;
  private consumer: EventConsumer<E> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: ServiceMessagingOptions<E>) {
    const { url, service, logger, registry, outbox } = options;
    this.broker = new Broker({ url, connectionName: `${service} (pid ${process.pid})`, logger });
    const deadLetterQueue = deadLetterQueueOf(service);
    this.metrics = registry
      ? new MessagingMetrics(registry, {
          outboxBacklog: () => outbox.countUnpublished(),
          deadLetters: async () =>
            this.broker.isConnected
              ? (await this.broker.connection.queueDeclare({ queue: deadLetterQueue, passive: true })).messageCount
              : undefined,
          brokerConnected: () => this.broker.isConnected,
        })
      : undefined;
    this.publisher = new EventPublisher(this.broker, options.mustBeRouted);
  }

  /** Whether the broker answers right now (readiness reports it). */
  get isConnected(): boolean {
    return this.broker.isConnected;
  }

  /** Starts relaying the outbox and consuming the queue. */
  start(): this {
    const { options, metrics } = this;
    this.relay ??= new OutboxRelay({
      store: options.outbox,
      publisher: this.publisher,
      logger: options.logger,
      ...(metrics && { metrics }),
      ...options.relay,
    }).start();
    this.consumer ??= new EventConsumer<E>({
      broker: this.broker,
      spec: {
        queue: options.service,
        routingKeys: options.consumes,
        ...(options.deliveryLimit !== undefined && { deliveryLimit: options.deliveryLimit }),
      },
      decode: options.decode,
      handle: options.handle,
      logger: options.logger,
      ...(metrics && { metrics }),
      ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    }).start();
    return this;
  }

  /** Cuts the relay's sleep short: a unit of work just wrote to the outbox. */
  wake(): void {
    this.relay?.wake();
  }

  /**
   * Stops consuming (waiting for the handlers in flight) and relaying, then closes the connection; once, however often
   * it is called.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.all([this.consumer?.stop(), this.relay?.stop()]);
      await this.publisher.close().catch(() => undefined);
      await this.broker.close();
    })();
    return this.stopping;
  }
}

export type { MessagingLogger };

/** The messaging settings every service reads (see @platform/runtime's messagingSettings). */
export interface MessagingSettings {
  readonly amqpUrl: string;
  readonly messagingDeliveryLimit: number;
  readonly messagingConcurrency: number;
  readonly outboxPollMs: number;
}

/**
 * What a service's messaging package says of its queue: the types it is bound to, how a message decodes, what handles
 * an event.
 */
export interface EventHandler<E extends ConsumableEvent> {
  readonly consumes: readonly string[];
  decode(body: unknown): Decoded<E>;
  handle(event: E): Promise<string>;
  /**
   * Whether an event this service publishes must reach a queue (see EventPublisher); every one must when absent.
   */
  mustBeRouted?(type: string): boolean;
}

/** A service's messaging from its settings and its handler; undefined when AMQP_URL is not set. */
export function messagingFor<E extends ConsumableEvent>(
  settings: MessagingSettings,
  parts: {
    readonly service: string;
    readonly handler: EventHandler<E>;
    readonly outbox: OutboxStore;
    readonly logger: MessagingLogger;
    readonly registry: Registry;
  },
): ServiceMessaging<E> | undefined {
  if (!settings.amqpUrl) return undefined;
  const { service, handler, outbox, logger, registry } = parts;
  return new ServiceMessaging<E>({
    url: settings.amqpUrl,
    service,
    consumes: handler.consumes,
    decode: (body) => handler.decode(body),
    handle: (event) => handler.handle(event),
    deliveryLimit: settings.messagingDeliveryLimit,
    concurrency: settings.messagingConcurrency,
    outbox,
    relay: { pollMs: settings.outboxPollMs },
    logger,
    registry,
    ...(handler.mustBeRouted && { mustBeRouted: (type: string) => handler.mustBeRouted!(type) }),
  });
}
