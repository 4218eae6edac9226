import { openApiContract } from '@platform/test-kit';
import { SPEC_FILE } from './sample-server';

const contract = openApiContract(SPEC_FILE);

/**
 * fetch(), then docs/sample-app.openapi.yaml's check of the response (an operation for the method and path, a
 * documented status, its content type, a body its schema takes): how the sample app's tests reach it, so an answer
 * the description lacks fails the test that received it.
 */
export async function checkedFetch(url: string, init?: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  await contract.assertMatches(init?.method ?? 'GET', url, response, init?.headers);
  return response;
}

/** The opt-out, for what the description deliberately leaves out: /swagger and its files. `why` is for the reader. */
export function uncheckedFetch(url: string, init: RequestInit | undefined, why: string): Promise<Response> {
  void why;
  return fetch(url, init);
}
