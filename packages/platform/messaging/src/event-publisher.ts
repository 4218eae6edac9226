import { traceCarrier } from '@platform/runtime';
import type { Publisher } from 'rabbitmq-client';
import type { Broker } from './broker';
import { EVENTS_EXCHANGE } from './topology';

/** An event as it travels: its id (the AMQP messageId), its type (the routing key) and the envelope as JSON text. */
export interface OutgoingEvent {
  readonly id: string;
  readonly type: string;
  readonly payload: string;
}

/**
 * No queue is bound to the event's type yet (its consumer never started): the broker returned it, so it is not
 * published.
 */
export class UnroutableEventError extends Error {
  constructor(
    readonly eventId: string,
    readonly type: string,
  ) {
    super(`No queue is bound to ${type} on ${EVENTS_EXCHANGE}: event ${eventId} was returned, not published.`);
    this.name = 'UnroutableEventError';
  }
}

/**
 * Publishes events to the topic exchange with publisher confirms: `publish`
 * resolves once the broker has taken responsibility for the message (written
 * it to every queue it routes to), and rejects when it refused it, lost the
 * connection first, or had no queue for it. Messages are persistent, and
 * mandatory where `mustBeRouted` says so: an event another service consumes,
 * published before that service bound its queue, is returned (and retried from
 * the outbox) instead of dropped. An event no service consumes (one only
 * outside listeners take, such as a low-stock alert) is not mandatory: with
 * nobody bound it is dropped by the broker, as a topic exchange does, instead
 * of waiting in the outbox for ever.
 */
export class EventPublisher {
  private readonly publisher: Publisher;
  /**
   * Ids of messages the broker returned. The broker sends a return before the
   * confirm of the same message, and the client emits it on the next turn of
   * the event loop (setImmediate), so one more turn after the confirm sees it.
   */
  private readonly returned = new Set<string>();

  constructor(
    broker: Broker,
    private readonly mustBeRouted: (type: string) => boolean = () => true,
  ) {
    this.publisher = broker.connection.createPublisher({
      confirm: true,
      exchanges: [{ exchange: EVENTS_EXCHANGE, type: 'topic', durable: true }],
    });
    this.publisher.on('basic.return', (message) => {
      if (message.messageId) this.returned.add(message.messageId);
    });
  }

  /** Inside a span (the relay's publish), the message carries its `traceparent` and `tracestate` headers. */
  async publish({ id, type, payload }: OutgoingEvent): Promise<void> {
    const headers = traceCarrier();
    await this.publisher.send(
      {
        ...(headers && { headers }),
        exchange: EVENTS_EXCHANGE,
        routingKey: type,
        messageId: id,
        type,
        durable: true,
        mandatory: this.mustBeRouted(type),
        contentType: 'application/json',
      },
      Buffer.from(payload, 'utf8'),
    );
    await new Promise((resolve) => setImmediate(resolve));
    if (this.returned.delete(id)) throw new UnroutableEventError(id, type);
  }

  close(): Promise<void> {
    return this.publisher.close();
  }
}
