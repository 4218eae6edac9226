import { callWith as uncheckedCallWith } from '@commerce/identity/testing';
import { assertMatchesSalesContract } from './support';

/**
 * identity's testing callWith (fetch with a bearer token), then docs/sales.openapi.yaml's check of the response, as
 * support's request does: a status or field the description lacks fails the test that received it.
 */
export async function callWith(url: string, token?: string, init: RequestInit = {}): Promise<Response> {
  const response = await uncheckedCallWith(url, token, init);
  await assertMatchesSalesContract(init.method ?? 'GET', url, response, init.headers);
  return response;
}
