import { ValidationError } from '@platform/kernel';
import type { Context, Middleware, Next } from 'koa';
import { bodyBytes, contentCodingOf } from './body-bytes';
import { repeatedProperties } from './repeated-properties';
import { RequestError } from './request-error';

declare module 'koa' {
  interface Request {
    /** The JSON object jsonObjectBody read, once it has. */
    body?: unknown;
  }
}

const UTF8 = new Set(['utf-8', 'utf8']);
const CHARSET = /;\s*charset\s*(?:=\s*("[^"]*"|[^;\s]*))?/gi;
const OBJECT_OR_ARRAY = /^[\t\n\r ]*[[{]/;

/**
 * Every charset the Content-Type declares, lower case, '' for one without a
 * value. Read here rather than through ctx.request.charset, which answers ''
 * for a header it cannot parse and only the last of repeated parameters.
 */
function charsetsOf(contentType: string): string[] {
  return [...contentType.matchAll(CHARSET)].map(([, value = '']) => value.replace(/^"(.*)"$/, '$1').toLowerCase());
}

function bytesOf(limit: string): number {
  const match = /^(\d+)(b|kb|mb)?$/i.exec(limit);
  if (!match) throw new RangeError(`Not a body size limit: ${limit} (say "64kb")`);
  return Number(match[1]) * { b: 1, kb: 1024, mb: 1024 * 1024 }[(match[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb'];
}

function unsupported(detail: string): RequestError {
  return new RequestError('UNSUPPORTED_MEDIA_TYPE', detail);
}

/** Refuses, before reading a byte, a body this service could only misread; answers its content coding. */
function checkFraming(ctx: Context): string {
  const transfer = ctx.get('Transfer-Encoding');
  // Node removes chunked framing only: any other transfer coding would reach the parser still encoded.
  if (
    transfer &&
    transfer
      .toLowerCase()
      .split(',')
      .some((coding) => coding.trim() !== 'chunked')
  ) {
    throw unsupported(
      `The body uses a transfer coding other than chunked (${transfer}); send a compressed body with Content-Encoding instead.`,
    );
  }
  if (!ctx.request.length && !transfer) throw new RequestError('BODY_REQUIRED', 'A JSON object body is required.');
  const contentType = ctx.get('Content-Type');
  // The header nearly every client sends needs no parsing; anything else is parsed and checked in full.
  if (contentType !== 'application/json') {
    if (!ctx.is('application/json')) throw unsupported('The body must be application/json.');
    const charset = charsetsOf(contentType).find((declared) => !UTF8.has(declared));
    if (charset !== undefined)
      throw unsupported(
        `The body must be UTF-8 (charset=utf-8, or none), not ${charset ? `charset=${charset}` : 'an empty charset'}.`,
      );
  }
  const coding = contentCodingOf(ctx.get('Content-Encoding'));
  if (!coding) throw unsupported('The body must use one content coding of gzip, deflate, br or identity, or none.');
  return coding;
}

function parse(text: string): unknown {
  if (!OBJECT_OR_ARRAY.test(text)) throw new RequestError('MALFORMED_JSON', 'The request body must be a JSON object.');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RequestError('MALFORMED_JSON', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * A body of exactly one JSON object, at most `limit` (e.g. "64kb") as sent and
 * once decoded, in `ctx.request.body`: what every POST and PUT of every service
 * takes. The text must be UTF-8 and give each property once per object;
 * `__proto__` is kept as a plain property (JSON.parse defines it, never sets
 * the prototype), for the codec to refuse as unknown.
 */
export function jsonObjectBody(limit: string): Middleware {
  const maxBytes = bytesOf(limit);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  return async function jsonObjectBody(ctx: Context, next: Next): Promise<void> {
    const bytes = await bodyBytes(ctx.req, checkFraming(ctx), maxBytes);
    if (bytes.length === 0) throw new RequestError('BODY_REQUIRED', 'A JSON object body is required.');
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw new RequestError('MALFORMED_JSON', 'The request body is not valid UTF-8.');
    }
    const body = parse(text);
    if (Array.isArray(body)) throw new RequestError('BODY_NOT_AN_OBJECT', 'The body must be a JSON object.');
    const repeated = repeatedProperties(text);
    if (repeated.length > 0)
      throw new ValidationError(Object.fromEntries(repeated.map((path) => [path, ['is given more than once']])));
    ctx.request.body = body;
    await next();
  };
}
