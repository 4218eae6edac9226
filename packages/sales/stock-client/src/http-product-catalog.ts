import { Money } from '@commerce/shared-kernel';
import { UnavailableError } from '@platform/kernel';
import type { ProductCatalog, QuotedProduct } from '@sales/domain';
import type { ClientCredentials } from './client-credentials';
import { DEFAULT_RESILIENCE, type ResilienceOptions, ResilientJsonClient } from './resilient-json-client';

export interface HttpProductCatalogOptions {
  /** The stock API's base URL (STOCK_URL): the service itself, or the gateway in front of it. */
  readonly stockUrl: string;
  /** Tokens for stock's API when it checks them; none when it runs open. */
  readonly credentials?: Pick<ClientCredentials, 'token' | 'invalidate'>;
  readonly resilience?: Partial<ResilienceOptions>;
}

/** The stock API answers at most this many ids in one batch read. */
const BATCH = 100;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The sales ProductCatalog over stock's `GET /api/products?ids=…`: one call
 * per hundred ids, each line's name and price read as stock states them now.
 * Stock that cannot be reached, or answers what it never promised, is an
 * UnavailableError (STOCK_UNAVAILABLE): placing the order answers 503 and
 * records nothing.
 */
export class HttpProductCatalog implements ProductCatalog {
  private readonly client: ResilientJsonClient;

  constructor(private readonly options: HttpProductCatalogOptions) {
    this.client = new ResilientJsonClient(options.stockUrl, 'STOCK_UNAVAILABLE', 'stock service', {
      ...DEFAULT_RESILIENCE,
      ...options.resilience,
    });
  }

  get breaker() {
    return this.client.breaker;
  }

  async quote(ids: readonly number[]): Promise<QuotedProduct[]> {
    const unique = [...new Set(ids)];
    const quoted: QuotedProduct[] = [];
    for (let start = 0; start < unique.length; start += BATCH)
      quoted.push(...(await this.quoteBatch(unique.slice(start, start + BATCH))));
    return quoted;
  }

  private async quoteBatch(ids: readonly number[]): Promise<QuotedProduct[]> {
    const path = `/api/products?ids=${ids.join(',')}`;
    const credentials = this.options.credentials;
    const token = await credentials?.token();
    let response = await this.client.get(path, bearer(token));
    if (response.status === 401 && credentials && token !== undefined) {
      // A token the stock service no longer takes (its issuer's keys rotated, say): one more try with a fresh one.
      credentials.invalidate(token);
      response = await this.client.get(path, bearer(await credentials.token()));
    }
    if (response.status !== 200)
      throw new UnavailableError(
        'STOCK_UNAVAILABLE',
        `The stock service refused the product read: ${response.status} ${describe(response.body)}.`,
        5,
      );
    return this.decode(response.body);
  }

  private decode(body: unknown): QuotedProduct[] {
    const malformed = () =>
      new UnavailableError(
        'STOCK_UNAVAILABLE',
        'The stock service answered a product list this version of sales cannot read.',
        5,
      );
    if (!Array.isArray(body)) throw malformed();
    return body.map((item: unknown) => {
      if (
        !isObject(item) ||
        typeof item.id !== 'number' ||
        typeof item.name !== 'string' ||
        typeof item.price !== 'number'
      )
        throw malformed();
      const price = Money.parse(item.price);
      if (!(price instanceof Money)) throw malformed();
      return { id: item.id, name: item.name, price };
    });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

function bearer(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** A problem's title or code, for the message; never the whole body. */
function describe(body: unknown): string {
  if (!isObject(body)) return '';
  return [body.code, body.detail ?? body.title].filter((part) => typeof part === 'string').join(': ');
}
