import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export interface MessagingGauges {
  /**
   * Rows of the outbox not published yet: the backlog (the same for every instance of the service: it is the
   * database's).
   */
  readonly outboxBacklog?: () => Promise<number>;
  /** Messages in the service's dead-letter queue (the broker's count, the same for every instance). */
  readonly deadLetters?: () => Promise<number | undefined>;
  readonly brokerConnected?: () => boolean;
}

/**
 * What a service's messaging counts, in the service's Prometheus registry:
 * events published and failed publishes, events consumed by outcome,
 * redeliveries, dead letters, and the lag from an event's occurrence to its
 * handling. The backlog and the dead-letter depth are read at scrape time
 * from where they live, so every instance reports the same truth.
 */
export class MessagingMetrics {
  private readonly publishedTotal: Counter<'type'>;
  private readonly publishFailuresTotal: Counter<'type'>;
  private readonly consumedTotal: Counter<'type' | 'outcome'>;
  private readonly redeliveredTotal: Counter<'type'>;
  private readonly deadLetteredTotal: Counter<'reason'>;
  private readonly lag: Histogram<'type'>;

  constructor(registry: Registry, gauges: MessagingGauges = {}) {
    const registers = [registry];
    this.publishedTotal = new Counter({
      name: 'messaging_events_published_total',
      help: 'Events the broker confirmed, by type',
      labelNames: ['type'],
      registers,
    });
    this.publishFailuresTotal = new Counter({
      name: 'messaging_publish_failures_total',
      help: 'Publish attempts that failed and will be retried, by type',
      labelNames: ['type'],
      registers,
    });
    this.consumedTotal = new Counter({
      name: 'messaging_events_consumed_total',
      help: 'Events handled and acked, by type and outcome',
      labelNames: ['type', 'outcome'],
      registers,
    });
    this.redeliveredTotal = new Counter({
      name: 'messaging_events_redelivered_total',
      help: 'Deliveries of a message that was delivered before, by type',
      labelNames: ['type'],
      registers,
    });
    this.deadLetteredTotal = new Counter({
      name: 'messaging_events_dead_lettered_total',
      help: 'Messages this instance sent to the dead-letter queue, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.lag = new Histogram({
      name: 'messaging_event_lag_seconds',
      help: 'From an event occurring to its consumer committing its effect, by type',
      labelNames: ['type'],
      buckets: LAG_BUCKETS,
      registers,
    });
    const { outboxBacklog, deadLetters, brokerConnected } = gauges;
    if (outboxBacklog)
      scrapedGauge(registry, 'messaging_outbox_backlog', 'Events in the outbox not yet published', outboxBacklog);
    if (deadLetters)
      scrapedGauge(
        registry,
        'messaging_dead_letter_messages',
        "Messages waiting in this service's dead-letter queue",
        deadLetters,
      );
    if (brokerConnected)
      scrapedGauge(
        registry,
        'messaging_broker_connected',
        '1 when this instance is connected to RabbitMQ, else 0',
        async () => (brokerConnected() ? 1 : 0),
      );
  }

  published(type: string): void {
    this.publishedTotal.inc({ type });
  }

  publishFailed(type: string): void {
    this.publishFailuresTotal.inc({ type });
  }

  consumed(type: string, outcome: string, occurredAt: string, now = Date.now()): void {
    this.consumedTotal.inc({ type, outcome });
    const occurred = Date.parse(occurredAt);
    if (!Number.isNaN(occurred)) this.lag.observe({ type }, Math.max(0, now - occurred) / 1000);
  }

  redelivered(type: string): void {
    this.redeliveredTotal.inc({ type });
  }

  deadLettered(reason: string): void {
    this.deadLetteredTotal.inc({ reason });
  }
}

/** A gauge whose value is read when Prometheus scrapes; a read that fails leaves the gauge out of that scrape. */
function scrapedGauge(registry: Registry, name: string, help: string, read: () => Promise<number | undefined>): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      this.reset();
      const value = await read().catch(() => undefined);
      if (value !== undefined) this.set(value);
    },
  });
}
