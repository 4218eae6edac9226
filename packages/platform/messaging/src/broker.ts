import { Connection } from 'rabbitmq-client';

/** Where the broker says what happens to its connection; the service's logger fits. */
export interface MessagingLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface BrokerOptions {
  /** `amqp://user:password@host:port/vhost`: the vhost comes from the path, so environments can share a broker. */
  readonly url: string;
  /** Shown in RabbitMQ's connection list: which service and instance this is. */
  readonly connectionName: string;
  readonly logger: MessagingLogger;
  /** Longest wait between reconnection attempts. */
  readonly maxRetryDelayMs?: number;
}

/** The URL with its password masked, for logs. */
export function redactedAmqpUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/**
 * One connection to RabbitMQ for a service instance. It connects in the
 * background and reconnects by itself for as long as it is open (the client
 * re-declares every publisher's and consumer's topology on each new
 * connection). Losing the broker and getting it back are logged once each,
 * not on every retry.
 */
export class Broker {
  readonly connection: Connection;
  private state: 'connecting' | 'up' | 'down' = 'connecting';
  private closed = false;

  constructor(private readonly options: BrokerOptions) {
    const { url, connectionName, logger } = options;
    this.connection = new Connection({
      url,
      connectionName,
      retryLow: 250,
      retryHigh: options.maxRetryDelayMs ?? 5_000,
      connectionTimeout: 5_000,
      acquireTimeout: 5_000,
      heartbeat: 10,
    });
    const where = redactedAmqpUrl(url);
    this.connection.on('connection', () => {
      if (this.state !== 'up')
        logger.info(this.state === 'down' ? 'RabbitMQ is reachable again' : 'connected to RabbitMQ', { broker: where });
      this.state = 'up';
    });
    this.connection.on('error', (error: unknown) => {
      if (this.closed) return;
      if (this.state !== 'down')
        logger.warn('RabbitMQ is not reachable; retrying in the background (events wait in the outbox meanwhile)', {
          broker: where,
          error: String(error),
        });
      this.state = 'down';
    });
  }

  /** Whether the broker answers right now. */
  get isConnected(): boolean {
    return this.connection.ready;
  }

  /** Resolves once connected, or rejects after `timeoutMs` (the connection keeps trying). */
  async waitUntilConnected(timeoutMs: number): Promise<void> {
    await this.connection.onConnect(timeoutMs, true);
  }

  /**
   * Closes the connection once every publisher and consumer on it has closed its channel, or after `timeoutMs` whatever
   * is left open.
   */
  async close(timeoutMs = 5_000): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
    const outcome = await Promise.race([this.connection.close().then(() => 'closed' as const), late]);
    clearTimeout(timer);
    if (outcome === 'late') this.connection.unsafeDestroy();
  }
}
