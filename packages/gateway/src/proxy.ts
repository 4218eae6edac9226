import { requestIdOf } from '@platform/http';
import { abandonHttpClientSpan, displayUrl, endHttpClientSpan, startHttpClientSpan } from '@platform/runtime';
import type { Context, Middleware } from 'koa';
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { type Agent, type Dispatcher, errors } from 'undici';
import { GatewayError } from './gateway-errors';
import { BodyTooLargeError, ReplayableBody } from './replayable-body';
import type { Instance, UpstreamGroup } from './upstream-group';

/** Which upstream serves which paths: `/api/products` serves itself and everything below it. */
export interface Route {
  readonly prefix: string;
  readonly upstream: UpstreamGroup;
}

export interface ProxyOptions {
  readonly routes: readonly Route[];
  readonly dispatcher: Agent;
  readonly timeoutMs: number;
  readonly bodyLimitBytes: number;
  /**
   * The origin clients reach the gateway at (PUBLIC_URL): the host and scheme the services are told. Empty: the address
   * it listens on.
   */
  readonly publicUrl: string;
  /** The address the gateway binds (HOST), for that fallback. */
  readonly host: string;
}

/**
 * What the services are told of how the client reached the gateway: never the client's own Host, which anyone may
 * write.
 */
interface PublicOrigin {
  readonly host: string;
  readonly proto: string;
}

function publicOriginOf(url: string): PublicOrigin {
  const { host, protocol } = new URL(url);
  return { host, proto: protocol.slice(0, -1) };
}

/** RFC 9110 §7.6.1: headers for one connection only, never forwarded (plus those the Connection header names). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/** Set by the gateway from what it knows, never taken from the client. */
const REPLACED = new Set([
  'host',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-request-id',
  'expect',
]);
/** A retry may repeat these without a second effect (RFC 9110 §9.2.2); any request with an Idempotency-Key, too. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * A response body up to this size, whose length the upstream declared, is
 * read whole and written with the headers in one go: the upstream has already
 * sent it, and streaming it through Node's pipeline cost more than the request
 * (docs/performance.md). Larger bodies, and bodies of unknown length, stream.
 */
const WHOLE_BODY_BYTES = 64 * 1024;

/**
 * No connection could be made: the instance is gone (or was never there), and
 * the request did not leave, so it can go to another instance whatever it is.
 * The only failures that take an instance out: any other (a connection that
 * broke, an answer that is not HTTP) may be the request's own doing, and a
 * client must not be able to take instances out (readiness decides for those).
 */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function matches(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * The hop-by-hop headers of one message: the fixed ones, plus any its Connection header names (most name none, and
 * share one set).
 */
function hopByHop(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): ReadonlySet<string> {
  const connection = headers.connection;
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return HOP_BY_HOP;
  const named = String(connection)
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  return new Set([...HOP_BY_HOP, ...named]);
}

/** RFC 7239: an IPv6 address is quoted and bracketed; IPv4-mapped IPv6 is written as IPv4. */
function forwardedFor(ip: string): string {
  const address = ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  return address.includes(':') ? `"[${address}]"` : address;
}

/**
 * What goes upstream: the client's end-to-end headers, the request id, and what the gateway knows of the client and of
 * itself.
 */
function upstreamHeaders(ctx: Context, { host, proto }: PublicOrigin): Record<string, string | string[]> {
  const skip = hopByHop(ctx.req.headers);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined || skip.has(name) || REPLACED.has(name)) continue;
    headers[name] = value;
  }
  const ip = forwardedFor(ctx.request.ip);
  headers['x-request-id'] = requestIdOf(ctx);
  headers.forwarded = `for=${ip};host="${host}";proto=${proto}`;
  headers['x-forwarded-for'] = ip.replace(/^"\[|\]"$/g, '');
  headers['x-forwarded-host'] = host;
  headers['x-forwarded-proto'] = proto;
  return headers;
}

function errorCode(error: unknown): string | undefined {
  for (
    let cause: unknown = error, depth = 0;
    cause && depth < 4;
    depth++, cause = (cause as { cause?: unknown }).cause
  ) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * Forwards the request (its target is a path: see originFormOnly) to an
 * instance of the upstream its path belongs to, streaming the body both ways,
 * and answers what the upstream answered, minus hop-by-hop headers. An
 * instance that refuses the connection (or cannot be reached at all) is taken
 * out. A failed attempt goes to another instance when that cannot repeat an
 * effect: always when nothing was sent yet, and after a broken connection or
 * an answer that is not HTTP only for idempotent requests (GET, HEAD, PUT,
 * DELETE, or any with an Idempotency-Key), whose body is kept so it can be
 * sent again. No instance answered: 502 UPSTREAM_UNAVAILABLE. No headers
 * within `timeoutMs`: 504 UPSTREAM_TIMEOUT, never retried (the upstream may be
 * working on it).
 */
export function proxy({ routes, dispatcher, timeoutMs, bodyLimitBytes, publicUrl, host }: ProxyOptions): Middleware {
  let told: PublicOrigin | undefined = publicUrl ? publicOriginOf(publicUrl) : undefined;
  return async function proxyToUpstream(ctx, next) {
    const route = routes.find((candidate) => matches(ctx.path, candidate.prefix));
    if (!route) {
      await next();
      return;
    }
    (ctx as { _matchedRoute?: string })._matchedRoute = `${route.prefix}/** → ${route.upstream.name}`;
    const declared = Number(ctx.get('Content-Length') || 0);
    if (declared > bodyLimitBytes) throw new BodyTooLargeError(bodyLimitBytes);
    const hasBody = declared > 0 || ctx.get('Transfer-Encoding') !== '';
    const idempotent = IDEMPOTENT.has(ctx.method) || ctx.get('Idempotency-Key') !== '';
    const body = hasBody ? new ReplayableBody(ctx.req, bodyLimitBytes, idempotent) : undefined;
    // Without PUBLIC_URL, the address it listens on, as its start line gives it: known once the first request arrives
    // on it.
    told ??= publicOriginOf(displayUrl(host, ctx.req.socket.localPort ?? 0));
    const headers = upstreamHeaders(ctx, told);
    // A client that goes away takes its request upstream with it. undici takes an emitter of 'abort' as a
    // signal, which costs far less than an AbortController per request.
    const abandoned = new Abandonment();
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) abandoned.abort();
    });
    const tried = new Set<Instance>();
    for (let instance = route.upstream.pick(tried); instance; instance = route.upstream.pick(tried)) {
      tried.add(instance);
      // One client span per attempt at an instance, a child of the gateway's server span; its traceparent replaces
      // whatever the client sent, so the instance's span is its child.
      const attempt = startHttpClientSpan(ctx.method, instance.url);
      try {
        const request: Dispatcher.RequestOptions = {
          origin: instance.url,
          path: ctx.url,
          method: ctx.method,
          headers: attempt ? { ...headers, ...attempt.headers } : headers,
          // Read from the client only as undici writes it upstream: pulled chunk by chunk, never buffered whole.
          body: body ? Readable.from(body.chunks(), { objectMode: false }) : null,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal: abandoned,
        };
        const answer = await dispatcher.request(request);
        const length = Number(answer.headers['content-length'] ?? -1);
        let answered: Buffer | Readable | null = answer.body;
        if (answer.statusCode === 204 || answer.statusCode === 304) {
          await answer.body.dump();
          answered = null;
        } else if (ctx.method === 'HEAD') {
          // The body is empty and Koa writes none, but a null body would turn the status into 204.
          await answer.body.dump();
        } else if (length >= 0 && length <= WHOLE_BODY_BYTES) {
          answered = Buffer.from(await answer.body.arrayBuffer());
        } else {
          // Koa 3 listens for a stream body's errors only while it pipes it, and destroys it when the response is
          // over, which undici answers with an error event: one that found no listener once took a gateway down
          // under load (docs/performance.md). Errors while piping still reach Koa.
          answer.body.on('error', ignore);
        }
        const skip = hopByHop(answer.headers);
        for (const name in answer.headers) {
          const value = answer.headers[name];
          if (value !== undefined && !skip.has(name)) ctx.set(name, value);
        }
        ctx.status = answer.statusCode;
        ctx.body = answered;
        if (attempt) endHttpClientSpan(attempt.span, answer.statusCode);
        return;
      } catch (error) {
        if (attempt) abandonHttpClientSpan(attempt.span, error);
        if (error instanceof BodyTooLargeError) throw error;
        if (abandoned.gone) {
          // Nobody is left to answer: logged as nginx logs it, not as the gateway's error.
          ctx.status = CLIENT_CLOSED_REQUEST;
          return;
        }
        if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError)
          throw new GatewayError(
            'UPSTREAM_TIMEOUT',
            `The ${route.upstream.name} service did not answer within ${timeoutMs} ms.`,
            { cause: error },
          );
        const code = errorCode(error);
        const unreachable = code !== undefined && UNREACHABLE.has(code);
        if (unreachable) route.upstream.markDown(instance);
        // A connection that broke after the request left may have carried it: only what is safe to repeat goes again.
        if (!((unreachable && !body?.started) || (idempotent && (body?.replayable ?? true)))) {
          throw new GatewayError(
            'UPSTREAM_UNAVAILABLE',
            `The ${route.upstream.name} service closed the connection or answered what is not HTTP; the request may or may not have been applied.`,
            { cause: error },
          );
        }
      }
    }
    throw new GatewayError(
      'UPSTREAM_UNAVAILABLE',
      `No instance of the ${route.upstream.name} service can be reached or gave an answer.`,
    );
  };
}

/** nginx's status for a request whose client went away before the answer: in the access log and metrics only. */
const CLIENT_CLOSED_REQUEST = 499;

function ignore(): void {}

/**
 * What undici listens to for an abort: a plain emitter of 'abort'. It must have no `aborted` property: undici 8
 * takes any signal with one for an AbortSignal and calls its addEventListener, which an emitter lacks.
 */
class Abandonment extends EventEmitter {
  gone = false;

  abort(): void {
    this.gone = true;
    this.emit('abort');
  }
}
