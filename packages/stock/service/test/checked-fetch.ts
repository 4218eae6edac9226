import { callWith as uncheckedCallWith } from '@commerce/identity/testing';
import { assertMatchesContract } from '@stock/http-koa/testing';

export { checkedFetch, uncheckedFetch } from '@stock/http-koa/testing';

/** identity's testing callWith (fetch with a bearer token), its response checked as checkedFetch's is. */
export async function callWith(url: string, token?: string, init: RequestInit = {}): Promise<Response> {
  const response = await uncheckedCallWith(url, token, init);
  await assertMatchesContract(init.method ?? 'GET', url, response, init.headers);
  return response;
}
