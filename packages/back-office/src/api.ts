import type { Audience, Session } from './session';

/** An API's refusal, as its problem+json said it (RFC 9457), or what went wrong on the way. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
  ) {
    super(detail || title);
  }
}

export interface ApiAnswer<T> {
  readonly body: T;
  readonly headers: Headers;
}

/** The next page's URL from a Link header (rel="next"), if there is one. */
export function nextLink(headers: Headers): string | undefined {
  const link = headers.get('link') ?? '';
  return /<([^>]+)>\s*;\s*rel="?next"?/.exec(link)?.[1];
}

async function problemOf(response: Response): Promise<ApiProblem> {
  const body = (await response.json().catch(() => ({}))) as { title?: string; detail?: string };
  const title = body.title ?? response.statusText ?? 'Error';
  return new ApiProblem(response.status, title, body.detail ?? `${response.status} ${title}`);
}

/**
 * Calls an API through the gateway (this origin) with the signed-in person's token for it; answers the JSON body, or
 * throws the problem the API answered.
 */
export async function callApi<T>(
  session: Session,
  audience: Audience,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiAnswer<T>> {
  const token = await session.token(audience);
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  headers.authorization = `Bearer ${token.value}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  }).catch((error: unknown) => {
    throw new ApiProblem(0, 'Network error', `The gateway did not answer: ${String(error)}`);
  });
  if (!response.ok) throw await problemOf(response);
  const body = (response.status === 204 ? undefined : await response.json()) as T;
  return { body, headers: response.headers };
}
