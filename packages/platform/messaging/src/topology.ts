import type { ConsumerProps } from 'rabbitmq-client';

/** The durable topic exchange every event is published to, under its type as the routing key. */
export const EVENTS_EXCHANGE = 'commerce.events';

/** Where a queue sends what its consumer could not handle, under the consumer's name as the routing key. */
export const DEAD_LETTER_EXCHANGE = 'commerce.events.dead-letter';

export const DEFAULT_DELIVERY_LIMIT = 5;

/** A consumer's queue and what it is bound to: the service's name, and the event types it consumes. */
export interface QueueSpec {
  readonly queue: string;
  readonly routingKeys: readonly string[];
  /** How many times a message may fail before it is dead-lettered. */
  readonly deliveryLimit?: number;
}

export function deadLetterQueueOf(queue: string): string {
  return `${queue}.dead-letter`;
}

/**
 * The queue declaration, as docs/asyncapi.yaml describes it. A quorum queue
 * counts every delivery that ends without an ack (a nack, a consumer that
 * died) and dead-letters a message once it has failed `deliveryLimit` times;
 * RabbitMQ's `x-delivery-limit` is the number of failures it still redelivers
 * after, hence the minus one. Dead-lettering at least once needs
 * `reject-publish` overflow: the message leaves the queue only once the
 * dead-letter queue has it.
 */
export function queueArguments(
  queue: string,
  deliveryLimit = DEFAULT_DELIVERY_LIMIT,
): NonNullable<ConsumerProps['queueOptions']>['arguments'] {
  return {
    'x-queue-type': 'quorum',
    'x-delivery-limit': deliveryLimit - 1,
    'x-dead-letter-exchange': DEAD_LETTER_EXCHANGE,
    'x-dead-letter-routing-key': queue,
    'x-dead-letter-strategy': 'at-least-once',
    'x-overflow': 'reject-publish',
  };
}

/**
 * Every declaration a consumer's channel makes, again after every reconnection: idempotent, as RabbitMQ declarations
 * are.
 */
export function consumerTopology({
  queue,
  routingKeys,
  deliveryLimit,
}: QueueSpec): Pick<ConsumerProps, 'queue' | 'queueOptions' | 'exchanges' | 'queueBindings'> {
  return {
    queue,
    queueOptions: { queue, durable: true, arguments: queueArguments(queue, deliveryLimit) },
    exchanges: [
      { exchange: EVENTS_EXCHANGE, type: 'topic', durable: true },
      { exchange: DEAD_LETTER_EXCHANGE, type: 'direct', durable: true },
    ],
    queueBindings: routingKeys.map((routingKey) => ({ queue, exchange: EVENTS_EXCHANGE, routingKey })),
  };
}

/**
 * The dead-letter queue of `queue`: a durable quorum queue nothing consumes automatically; an operator inspects and
 * replays.
 */
export function deadLetterTopology(queue: string) {
  const deadLetters = deadLetterQueueOf(queue);
  return {
    exchange: { exchange: DEAD_LETTER_EXCHANGE, type: 'direct', durable: true },
    queue: { queue: deadLetters, durable: true, arguments: { 'x-queue-type': 'quorum' as const } },
    binding: { queue: deadLetters, exchange: DEAD_LETTER_EXCHANGE, routingKey: queue },
  };
}
