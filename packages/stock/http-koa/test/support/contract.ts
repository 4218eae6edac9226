import { openApiContract } from '@platform/test-kit';
import { join } from 'node:path';

/** This workspace's stock contract, which the service serves at /swagger; every stock HTTP test checks against it. */
export const OPENAPI_FILE = join(import.meta.dirname, '..', '..', '..', '..', '..', 'docs', 'openapi.yaml');

const contract = openApiContract(OPENAPI_FILE);

/** docs/openapi.yaml, parsed. */
export const openApiDocument = contract.document;

/** Throws unless a response is what docs/openapi.yaml says it can be (see @platform/test-kit's openApiContract). */
export const assertMatchesContract = contract.assertMatches;

/**
 * fetch(), then docs/openapi.yaml's check of the response (an operation for the method and path, a documented status,
 * its content type, a body its schema takes): how every stock test that does not go through an ApiUnderTest's
 * `request` reaches the service, so an answer the description lacks fails the test that received it.
 */
export async function checkedFetch(url: string, init?: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  await assertMatchesContract(init?.method ?? 'GET', url, response, init?.headers);
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
