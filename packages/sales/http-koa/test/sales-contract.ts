import { callWith as uncheckedCallWith } from '@commerce/identity/testing';
import { openApiContract } from '@platform/test-kit';
import { join } from 'node:path';

/** This workspace's sales contract, which the service's main hands the app. */
export const SALES_OPENAPI_FILE = join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'sales.openapi.yaml');

const contract = openApiContract(SALES_OPENAPI_FILE);
export const salesOpenApi = contract.document;
/** Throws unless a response is what docs/sales.openapi.yaml says it can be (@platform/test-kit's openApiContract). */
export const assertMatchesSalesContract = contract.assertMatches;

/** How the sales tests reach an app or a service: every response checked against docs/sales.openapi.yaml. */
export interface SalesClient {
  /** fetch() against `baseUrl`; throws if the response breaks the description. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** A JSON request, its body parsed. */
  json<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; body: T }>;
}

export function salesClient(baseUrl: string): SalesClient {
  const request = async (path: string, init?: RequestInit) => {
    const response = await fetch(`${baseUrl}${path}`, init);
    await contract.assertMatches(init?.method ?? 'GET', `${baseUrl}${path}`, response, init?.headers);
    return response;
  };
  return {
    request,
    async json(method, path, body, headers = {}) {
      const response = await request(path, {
        method,
        headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: (text ? JSON.parse(text) : undefined) as never,
      };
    },
  };
}

/**
 * identity's testing callWith (fetch with a bearer token), then the description's check of the response: a status or
 * field the description lacks fails the test that received it.
 */
export async function callWith(url: string, token?: string, init: RequestInit = {}): Promise<Response> {
  const response = await uncheckedCallWith(url, token, init);
  await assertMatchesSalesContract(init.method ?? 'GET', url, response, init.headers);
  return response;
}
