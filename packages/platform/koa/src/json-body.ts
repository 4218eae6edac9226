import type { Context, Middleware, Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { RequestError } from './request-error';

/**
 * A body of exactly one JSON object, at most `limit` (e.g. "64kb"), in
 * `ctx.request.body`: what every POST and PUT of every service takes.
 */
export function jsonObjectBody(limit: string): Middleware {
  const parseJson = bodyParser({ enableTypes: ['json'], jsonLimit: limit, strict: true });
  return async function jsonObjectBody(ctx: Context, next: Next): Promise<void> {
    if (!ctx.request.length && !ctx.get('transfer-encoding')) throw new RequestError('BODY_REQUIRED', 'A JSON object body is required.');
    if (!ctx.is('application/json')) throw new RequestError('UNSUPPORTED_MEDIA_TYPE', 'The body must be application/json.');
    let parsed = false;
    try {
      await parseJson(ctx, async () => {
        parsed = true;
        const body: unknown = ctx.request.body;
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw new RequestError('BODY_NOT_AN_OBJECT', 'The body must be a JSON object.');
        }
        await next();
      });
    } catch (error) {
      if (parsed) throw error;
      const status = (error as { status?: unknown }).status;
      if (status === 413) throw new RequestError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit.replace(/kb$/i, ' KiB')}.`);
      // Whatever else stops the body from being read (a corrupt gzip stream, say) is the client's body's fault, not a 500.
      if (!(typeof status === 'number' && status >= 400 && status < 500)) throw new RequestError('MALFORMED_JSON', 'The request body could not be read as JSON.');
      throw error;
    }
  };
}
