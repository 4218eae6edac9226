import { newEvent } from '@commerce/contracts';
import { rawHttpRequest } from '@platform/test-kit';
import type { OrderEvent } from '@stock/application';
import { expect } from 'chai';
import { assertMatchesContract } from './contract';

/** Sales' order events, delivered to the stock the API serves as its queue's consumer would (no broker between). */
export interface OrderFlow {
  placed(orderId: string, lines: readonly { productId: number; quantity: number }[]): Promise<void>;
  paid(orderId: string): Promise<void>;
  cancelled(orderId: string): Promise<void>;
}

/** The stock API on an ephemeral port: the bare HTTP app over a store, or the whole service. */
export interface ApiUnderTest {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** Every log line the app wrote, parsed. */
  readonly logs: Record<string, unknown>[];
  /** fetch() against the API; throws if the response breaks docs/openapi.yaml. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /**
   * A request fetch would not send (its own Transfer-Encoding…), on a connection the server closes; checked against
   * docs/openapi.yaml too.
   */
  raw(method: string, path: string, headers: Record<string, string>, ...body: (string | Buffer)[]): Promise<Response>;
  stop(): Promise<void>;
  /** Orders placed, paid and cancelled, for the suites of what follows them (shipments, returns). */
  readonly orders?: OrderFlow;
}

/** How a suite gets its API: the HTTP package's tests over memory, the service's over SQLite and PostgreSQL. */
export type StartApi = (context: Mocha.Context) => Promise<ApiUnderTest>;

/** An ApiUnderTest over what listens at `url`, every response checked against docs/openapi.yaml. */
export function checkedApi(
  url: string,
  logs: Record<string, unknown>[],
  stop: () => Promise<void>,
  orders?: OrderFlow,
): ApiUnderTest {
  return {
    ...(orders && { orders }),
    url,
    logs,
    async request(path, init) {
      const response = await fetch(`${url}${path}`, init);
      await assertMatchesContract(init?.method ?? 'GET', `${url}${path}`, response, init?.headers);
      return response;
    },
    async raw(method, path, headers, ...body) {
      const head = Object.entries({ Host: 'test', Connection: 'close', ...headers })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      const answer = await rawHttpRequest(url, `${method} ${path} HTTP/1.1\r\n${head}\r\n`, ...body);
      const { status } = answer;
      const response = new Response(status === 204 || status === 304 ? null : answer.body, {
        status,
        headers: answer.headers,
      });
      await assertMatchesContract(method, `${url}${path}`, response, headers);
      return response;
    },
    stop,
  };
}

/** The use cases stock's queue hands sales' order events to, as an OrderFlow. */
export function orderFlowOf(useCases: {
  readonly reserveForOrder: { execute(event: OrderEvent<'sales.order.placed'>): Promise<unknown> };
  readonly commitForOrder: { execute(event: OrderEvent<'sales.order.paid'>): Promise<unknown> };
  readonly releaseForOrder: { execute(event: OrderEvent<'sales.order.cancelled'>): Promise<unknown> };
}): OrderFlow {
  return {
    placed: async (orderId, lines) =>
      void (await useCases.reserveForOrder.execute(newEvent('sales.order.placed', { orderId, lines: [...lines] }))),
    paid: async (orderId) => void (await useCases.commitForOrder.execute(newEvent('sales.order.paid', { orderId }))),
    cancelled: async (orderId) =>
      void (await useCases.releaseForOrder.execute(newEvent('sales.order.cancelled', { orderId }))),
  };
}

/** A POST (or `init.method`) of a JSON body. */
export function json(body: unknown, init: RequestInit = {}): RequestInit {
  return {
    method: 'POST',
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

/**
 * Expects RFC 9457 problem+json with this status (and code, when given), its type and title as the platform answers
 * them; returns its body.
 */
export async function expectProblem(response: Response, status: number, code?: string) {
  expect(response.status, await response.clone().text()).to.equal(status);
  expect(response.headers.get('content-type')).to.equal('application/problem+json');
  const problem = (await response.json()) as Record<string, unknown>;
  expect(problem).to.include({ status, type: 'about:blank' });
  expect(problem.title).to.be.a('string').and.not.be.empty;
  if (code) expect(problem.code).to.equal(code);
  return problem;
}
