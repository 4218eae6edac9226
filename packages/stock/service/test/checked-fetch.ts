import { callWith as uncheckedCallWith } from '@commerce/identity/testing';
import { assertMatchesContract } from './openapi-contract';

/**
 * fetch(), then docs/openapi.yaml's check of the response (an operation for the method and path, a documented status,
 * its content type, a body its schema takes): how every stock test that does not go through support's `request`
 * reaches the service, so an answer the description lacks fails the test that received it.
 */
export async function checkedFetch(url: string, init?: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  await assertMatchesContract(init?.method ?? 'GET', url, response, init?.headers);
  return response;
}

/** identity's testing callWith (fetch with a bearer token), its response checked as checkedFetch's is. */
export async function callWith(url: string, token?: string, init: RequestInit = {}): Promise<Response> {
  const response = await uncheckedCallWith(url, token, init);
  await assertMatchesContract(init.method ?? 'GET', url, response, init.headers);
  return response;
}

/**
 * The opt-out, for a request the description deliberately does not cover: /swagger and its assets, or an operation
 * of a service started without the feature that serves it (webhooks off). `why` is for the reader of the call.
 */
export function uncheckedFetch(url: string, init: RequestInit | undefined, why: string): Promise<Response> {
  void why;
  return fetch(url, init);
}
