import { UnavailableError } from '@platform/kernel';
import { contextFrom, inSpan, SpanKind, tracingIsOn } from '@platform/runtime';
import { type AsyncMessage, type Consumer, ConsumerStatus } from 'rabbitmq-client';
import type { Broker, MessagingLogger } from './broker';
import type { MessagingMetrics } from './messaging-metrics';
import { consumerTopology, DEFAULT_DELIVERY_LIMIT, deadLetterTopology, type QueueSpec } from './topology';

/** The envelope every event travels in; the consumer only needs these to log, count and measure. */
export interface ConsumableEvent {
  readonly id: string;
  readonly type: string;
  readonly occurredAt: string;
}

export type Decoded<E> =
  | { readonly ok: true; readonly event: E }
  | {
      readonly ok: false;
      readonly failure: {
        readonly reason: string;
        readonly message: string;
        readonly id?: string;
        readonly type?: string;
      };
    };

/** How the broker delivered a message. */
export interface Delivery {
  /** The broker delivered it before (to this consumer or another). */
  readonly redelivered: boolean;
  /** How many earlier deliveries of it ended without an ack (the quorum queue's count). */
  readonly failedDeliveries: number;
}

export interface EventConsumerOptions<E extends ConsumableEvent> {
  readonly broker: Broker;
  readonly spec: QueueSpec;
  /**
   * The message body (JSON already parsed, or the raw bytes) as an event this service knows, or why not. Never throws.
   */
  readonly decode: (body: unknown) => Decoded<E>;
  /**
   * Commits the event's effect together with its inbox record, and answers
   * what it did (for logs and metrics). The message is acked only after this
   * resolves; when it throws, the message goes back to the queue.
   */
  readonly handle: (event: E, delivery: Delivery) => Promise<string>;
  readonly logger: MessagingLogger;
  readonly metrics?: Pick<MessagingMetrics, 'consumed' | 'redelivered' | 'deadLettered'>;
  /** Messages handled at once by this instance. */
  readonly concurrency?: number;
  /**
   * Failures that are nobody's fault and pass (the database is away): the message is held and retried in place, not
   * counted against its delivery limit.
   */
  readonly isTransient?: (error: unknown) => boolean;
  /** The first wait before retrying a transient failure; it doubles up to 5 s. */
  readonly transientRetryMs?: number;
}

const isUnavailable = (error: unknown) => error instanceof UnavailableError;

/**
 * Consumes a service's queue: declares it (a quorum queue bound to the event
 * types the service consumes, with a delivery limit and a dead-letter queue),
 * decodes each message, and acks it only once the handler has committed. A
 * message that is not a known event is dead-lettered at once; one whose
 * handler fails goes back to the queue, and is dead-lettered when it has
 * failed `deliveryLimit` times: never acked silently, never retried forever.
 * While a failure is transient (the database is down) the message is held and
 * retried here, so an outage does not use up its delivery limit.
 */
export class EventConsumer<E extends ConsumableEvent> {
  private consumer: Consumer | undefined;
  private declareDeadLetters: (() => void) | undefined;
  private firstReady: Promise<void> | undefined;
  private markReady: (() => void) | undefined;
  private stopping = false;
  private readonly waits = new Set<() => void>();
  private transientFailing = false;

  constructor(private readonly options: EventConsumerOptions<E>) {}

  get deliveryLimit(): number {
    return this.options.spec.deliveryLimit ?? DEFAULT_DELIVERY_LIMIT;
  }

  start(): this {
    if (this.consumer) return this;
    const { broker, spec, logger } = this.options;
    const deadLetters = deadLetterTopology(spec.queue);
    // The dead-letter queue is declared on every (re)connection too: it must exist before anything is dead-lettered
    // into it.
    const declareDeadLetters = (this.declareDeadLetters = () =>
      void broker.connection
        .exchangeDeclare(deadLetters.exchange)
        .then(() => broker.connection.queueDeclare(deadLetters.queue))
        .then(() => broker.connection.queueBind(deadLetters.binding))
        .catch((error: unknown) => {
          if (!this.stopping)
            logger.warn('could not declare the dead-letter queue yet; it is declared again on the next connection', {
              queue: deadLetters.queue.queue,
              error: String(error),
            });
        }));
    broker.connection.on('connection', declareDeadLetters);
    declareDeadLetters();
    this.firstReady = new Promise((resolve) => (this.markReady = resolve));
    this.consume(consumerTopology(spec));
    return this;
  }

  /** Consumes with `topology`; a queue that exists with another delivery limit is consumed as it stands, said once. */
  private consume(topology: ReturnType<typeof consumerTopology>, asDeclared = false): void {
    const { broker, spec, logger } = this.options;
    const concurrency = this.options.concurrency ?? 4;
    const consumer = broker.connection.createConsumer(
      { ...topology, qos: { prefetchCount: concurrency * 2 }, concurrency, requeue: true },
      (message) => this.onMessage(message),
    );
    this.consumer = consumer;
    consumer.once('ready', () => this.markReady?.());
    consumer.on('error', (error: unknown) => {
      if (this.stopping || consumer !== this.consumer) return;
      const changed = inequivalentArgument(error);
      if (changed === 'x-delivery-limit' && !asDeclared) {
        void this.consumeAsDeclared(consumer, topology, error);
        return;
      }
      if (changed) {
        logger.error(
          'the queue exists with other arguments than this instance declares, and cannot be consumed; delete it once it is drained, and it is declared again',
          { queue: spec.queue, error: String(error) },
        );
        return;
      }
      logger.warn('the consumer could not set up its queue yet; it retries by itself', {
        queue: spec.queue,
        error: String(error),
      });
    });
  }

  /**
   * RabbitMQ cannot change the arguments of a queue that exists: a
   * MESSAGING_DELIVERY_LIMIT other than the one the queue was first declared
   * with is refused (PRECONDITION_FAILED). Rather than retry that forever,
   * the queue is consumed as it stands, its own limit in force, and one line
   * says how to change it.
   */
  private async consumeAsDeclared(
    refused: Consumer,
    topology: ReturnType<typeof consumerTopology>,
    error: unknown,
  ): Promise<void> {
    const { spec, logger } = this.options;
    const current = /current is '(\d+)'/.exec(String(error))?.[1];
    logger.error(
      `queue ${spec.queue} keeps the delivery limit it was declared with${current === undefined ? '' : ` (${Number(current) + 1} failures)`}, not the ${this.deliveryLimit} of MESSAGING_DELIVERY_LIMIT: RabbitMQ cannot change an existing queue's arguments. It is consumed as it stands. To lower the limit, apply a policy (rabbitmqctl set_policy --apply-to queues <name> '^${spec.queue}$' '{"delivery-limit": ${this.deliveryLimit - 1}}'); to raise it, stop every consumer, let the queue drain, delete it and start again (docs/operations.md).`,
      {
        queue: spec.queue,
        deliveryLimit: this.deliveryLimit,
        ...(current !== undefined && { queueDeliveryLimit: Number(current) + 1 }),
        error: String(error),
      },
    );
    await refused.close();
    if (this.stopping) return;
    this.consume({ ...topology, queueOptions: { queue: spec.queue, passive: true } }, true);
  }

  /**
   * Resolves once the queue, its bindings and its consumer are set up (again after every reconnection; this is the
   * first).
   */
  ready(): Promise<void> {
    if (!this.firstReady) throw new Error('The consumer has not been started.');
    return this.firstReady;
  }

  /**
   * Stops taking messages and waits for those being handled; a message held for a transient failure goes back to the
   * queue.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.declareDeadLetters) this.options.broker.connection.off('connection', this.declareDeadLetters);
    for (const wake of this.waits) wake();
    await this.consumer?.close();
  }

  private async onMessage(message: AsyncMessage): Promise<ConsumerStatus> {
    const { decode, logger, metrics } = this.options;
    const delivery: Delivery = {
      redelivered: message.redelivered,
      failedDeliveries: Number(message.headers?.['x-delivery-count'] ?? 0) || 0,
    };
    const decoded = decode(message.body);
    if (!decoded.ok) {
      const { reason, message: why, id, type } = decoded.failure;
      logger.error('dead-lettering a message that is not an event this service knows', {
        queue: this.options.spec.queue,
        messageId: message.messageId ?? id,
        routingKey: message.routingKey,
        type,
        reason,
        error: why,
      });
      metrics?.deadLettered(reason);
      return ConsumerStatus.DROP;
    }
    const { event } = decoded;
    if (delivery.redelivered || delivery.failedDeliveries > 0) metrics?.redelivered(event.type);
    if (!tracingIsOn()) return this.handleDecoded(event, delivery);
    // A consumer span continuing the publisher's trace: the handler's statements, and the events it writes, are in it.
    const attributes = {
      'messaging.system': 'rabbitmq',
      'messaging.operation.type': 'process',
      'messaging.destination.name': this.options.spec.queue,
      'messaging.message.id': event.id,
    };
    return inSpan(
      `consume ${event.type}`,
      { kind: SpanKind.CONSUMER, parent: contextFrom(message.headers), attributes },
      () => this.handleDecoded(event, delivery),
    );
  }

  private async handleDecoded(event: E, delivery: Delivery): Promise<ConsumerStatus> {
    const { handle, logger, metrics } = this.options;
    const isTransient = this.options.isTransient ?? isUnavailable;
    for (let wait = this.options.transientRetryMs ?? 250; ; wait = Math.min(wait * 2, 5_000)) {
      try {
        const outcome = await handle(event, delivery);
        metrics?.consumed(event.type, outcome, event.occurredAt);
        this.recovered();
        return ConsumerStatus.ACK;
      } catch (error) {
        if (isTransient(error) && !this.stopping) {
          if (!this.transientFailing)
            logger.warn('events cannot be handled right now; each is held and retried until it can', {
              queue: this.options.spec.queue,
              eventId: event.id,
              type: event.type,
              error: String(error),
            });
          this.transientFailing = true;
          await this.pause(wait);
          if (!this.stopping) continue;
          return ConsumerStatus.REQUEUE;
        }
        const failures = delivery.failedDeliveries + 1;
        if (failures >= this.deliveryLimit) {
          logger.error('dead-lettering an event whose handler failed on every delivery', {
            queue: this.options.spec.queue,
            eventId: event.id,
            type: event.type,
            failures,
            error: errorText(error),
          });
          metrics?.deadLettered('handler-failed');
          return ConsumerStatus.DROP;
        }
        logger.warn('an event handler failed; the message goes back to the queue', {
          queue: this.options.spec.queue,
          eventId: event.id,
          type: event.type,
          failures,
          deliveryLimit: this.deliveryLimit,
          error: errorText(error),
        });
        // A short pause, growing with the failures, so that a failing message does not spin at once through its
        // deliveries.
        await this.pause(100 * failures);
        return ConsumerStatus.REQUEUE;
      }
    }
  }

  private recovered(): void {
    if (!this.transientFailing) return;
    this.transientFailing = false;
    this.options.logger.info('events are handled again', { queue: this.options.spec.queue });
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waits.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waits.add(wake);
    });
  }
}

/** The queue argument a PRECONDITION_FAILED declaration names as inequivalent, if that is why it failed. */
function inequivalentArgument(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'PRECONDITION_FAILED') return undefined;
  return /inequivalent arg '([^']+)'/.exec(String(message))?.[1];
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
