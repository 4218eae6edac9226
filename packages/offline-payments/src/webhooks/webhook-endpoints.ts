import { webhookSecret, stripeId } from '../ledger/ids';
import { noSuch } from '../stripe-error';

export interface WebhookEndpoint {
  readonly id: string;
  readonly created: number;
  readonly url: string;
  /** Event types, or `*` for every one. */
  readonly enabledEvents: readonly string[];
  readonly description: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly secret: string;
}

/** The endpoints events are sent to, each with the secret its deliveries are signed with. */
export class WebhookEndpoints {
  private readonly endpoints = new Map<string, WebhookEndpoint>();

  constructor(
    private readonly apiVersion: string,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /** The new endpoint, its secret included: the only answer that shows it, as with Stripe. */
  create(request: Omit<WebhookEndpoint, 'id' | 'created' | 'secret'>): Record<string, unknown> {
    const endpoint = { id: stripeId('we'), created: this.now(), secret: webhookSecret(), ...request };
    this.endpoints.set(endpoint.id, endpoint);
    return { ...this.object(endpoint), secret: endpoint.secret };
  }

  retrieve(id: string): Record<string, unknown> {
    return this.object(this.endpoint(id));
  }

  /** The endpoints that want events of `type`. */
  subscribedTo(type: string): WebhookEndpoint[] {
    return [...this.endpoints.values()].filter(
      (endpoint) => endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(type),
    );
  }

  private endpoint(id: string): WebhookEndpoint {
    const endpoint = this.endpoints.get(id);
    if (!endpoint) throw noSuch('webhook_endpoint', id, 'webhook_endpoint');
    return endpoint;
  }

  private object(endpoint: WebhookEndpoint): Record<string, unknown> {
    return {
      id: endpoint.id,
      object: 'webhook_endpoint',
      api_version: this.apiVersion,
      application: null,
      created: endpoint.created,
      description: endpoint.description,
      enabled_events: endpoint.enabledEvents,
      livemode: false,
      metadata: endpoint.metadata,
      status: 'enabled',
      url: endpoint.url,
    };
  }
}
