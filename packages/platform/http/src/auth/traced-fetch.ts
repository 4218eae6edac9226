import { abandonHttpClientSpan, endHttpClientSpan, startHttpClientSpan } from '@platform/runtime';

/**
 * A GET with `fetch` that, inside a trace, is a client span of it and sends its `traceparent` (ADR 0021): a request
 * that waits for the issuer's metadata or keys shows the wait, and the issuer's span for it is the call's child. The
 * span ends with the answer's headers: the bodies are a few hundred bytes. Outside a trace, and with tracing off, it is
 * `fetch` itself.
 */
export async function tracedGet(
  url: string,
  init: RequestInit & { headers: Record<string, string> },
): Promise<Response> {
  const attempt = startHttpClientSpan('GET', url);
  if (!attempt) return fetch(url, init);
  try {
    const response = await fetch(url, { ...init, headers: { ...init.headers, ...attempt.headers } });
    endHttpClientSpan(attempt.span, response.status);
    return response;
  } catch (error) {
    abandonHttpClientSpan(attempt.span, error);
    throw error;
  }
}
