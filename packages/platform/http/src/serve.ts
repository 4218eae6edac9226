import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { clientErrorHandler } from './client-errors';
import type { HttpApp } from './create-http-app';
import type { Logger } from './logger';

export interface ListenOptions {
  readonly port: number;
  /** The address to bind; empty for every interface. */
  readonly host: string;
  /** Longest a request may take to arrive whole (Node's requestTimeout). */
  readonly requestTimeoutMs: number;
  /** Longest the request headers may take to arrive (Node's headersTimeout). */
  readonly headersTimeoutMs: number;
}

export interface ServeOptions {
  /** On SIGTERM: how long the server keeps serving as before, readiness 503, before it stops accepting. */
  readonly shutdownDelayMs: number;
  /** On SIGTERM, once the server stops accepting: how long its connections may take to finish before they are cut. */
  readonly shutdownGraceMs: number;
}

export interface Listener {
  readonly server: Server;
  /** The connections open now, from the first one accepted. */
  readonly connections: ReadonlySet<Socket>;
  /** http://127.0.0.1:<port>, for clients on this host. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface CloseOptions {
  /** Skip the drain delay: nobody routes traffic here (Ctrl-C at a terminal). */
  readonly immediate?: boolean;
}

export interface RunningServer {
  readonly server: Server;
  /** http://127.0.0.1:<port>, for clients on this host. */
  readonly url: string;
  readonly port: number;
  /**
   * Graceful stop: readiness turns 503 and the server serves as before for
   * shutdownDelayMs; then it stops accepting, every response asks its client
   * to close the connection, and idle connections close when their keep-alive
   * time runs out, as they always do. What is still open after
   * shutdownGraceMs is closed; answers false when that cut a request.
   * `immediate` skips the delay and closes idle connections at once. Safe to
   * call more than once.
   */
  close(options?: CloseOptions): Promise<boolean>;
}

/** Until the service is ready, every request gets a 503 that says so. */
function starting(_request: http.IncomingMessage, response: http.ServerResponse): void {
  const body = JSON.stringify({
    type: 'about:blank',
    title: 'Service Unavailable',
    status: 503,
    detail: 'The service is starting.',
    code: 'NOT_READY',
  });
  response.writeHead(503, {
    'content-type': 'application/problem+json',
    'retry-after': '1',
    'x-request-id': randomUUID(),
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

/**
 * Binds the port before anything else is opened, so a port in use stops the
 * start at once, with one clear message. Requests that arrive before `serve`
 * answer 503 NOT_READY.
 */
export async function listen({ port, host, requestTimeoutMs, headersTimeoutMs }: ListenOptions): Promise<Listener> {
  const server = http.createServer(starting);
  server.requestTimeout = requestTimeoutMs;
  server.headersTimeout = Math.min(headersTimeoutMs, requestTimeoutMs);
  try {
    await new Promise<void>((resolve, reject) =>
      server.once('error', reject).listen(port, host || undefined, () => resolve()),
    );
  } catch (error) {
    const code = (error as { code?: string }).code;
    const where = host ? `${host}:${port}` : `port ${port}`;
    if (code === 'EADDRINUSE')
      throw new Error(
        `Cannot listen on ${where}: it is already in use. Stop what uses it, or set PORT to another port.`,
        { cause: error },
      );
    if (code === 'EACCES')
      throw new Error(`Cannot listen on ${where}: permission denied. Use a port above 1023, or set PORT.`, {
        cause: error,
      });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new Error(`Cannot listen on ${where}: HOST is not an address of this machine.`, { cause: error });
    throw error;
  }
  const bound = (server.address() as AddressInfo).port;
  const connections = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  return {
    server,
    connections,
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Hands the listener's requests to the app, and answers how to stop gracefully (a bare Koa app may pass a `drain` that
 * does nothing: it has no readiness to turn).
 */
export function serve(
  listener: Listener,
  http: Pick<HttpApp, 'app' | 'drain'>,
  options: ServeOptions,
  logger: Logger,
): RunningServer {
  const { server, connections } = listener;
  const handleAsync = http.app.callback();
  // Koa's handler answers its own errors: nothing waits for the promise.
  const handle = (request: IncomingMessage, response: ServerResponse) => void handleAsync(request, response);
  server.removeListener('request', starting);
  server.on('request', handle);
  server.on('clientError', clientErrorHandler(logger));
  /**
   * Once the server accepts no connection: each response, those of requests
   * in flight included, asks its client to close its connection
   * (Connection: close), and Node closes it after.
   */
  const endKeepAlive = () => {
    for (const socket of connections) {
      // Node's own handle on the response a connection is busy with (its clientError check reads it too).
      const response = (socket as { _httpMessage?: ServerResponse })._httpMessage;
      if (response && !response.headersSent) response.shouldKeepAlive = false;
    }
    server.removeListener('request', handle);
    server.on('request', function closingConnection(request: IncomingMessage, response: ServerResponse) {
      response.shouldKeepAlive = false;
      return handle(request, response);
    });
  };

  const stop = async ({ immediate = false }: CloseOptions): Promise<boolean> => {
    http.drain();
    if (options.shutdownDelayMs > 0 && !immediate) await sleep(options.shutdownDelayMs);
    // Stop accepting, through net.Server's close: http.Server's would also destroy every idle connection at once,
    // and an idle connection may carry a request its client has just sent (a cut). They are left to their
    // keep-alive timeout instead, the one every response advertises; only a person's Ctrl-C does not wait for it.
    const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
    endKeepAlive();
    if (immediate) server.closeIdleConnections();
    const grace = new AbortController();
    const graceOver = sleep(options.shutdownGraceMs, 'grace over' as const, { signal: grace.signal }).catch(
      () => 'closed' as const,
    );
    const first = await Promise.race([closed.then(() => 'closed' as const), graceOver]);
    grace.abort();
    if (first === 'closed') return true;
    server.closeIdleConnections();
    const busy = [...connections].filter((socket) => !socket.destroyed);
    if (busy.length > 0)
      logger.warn('shutdown grace period over: closing the remaining connections', {
        graceMs: options.shutdownGraceMs,
        connections: busy.length,
      });
    for (const socket of busy) socket.destroy();
    await closed;
    return busy.length === 0;
  };
  let closing: Promise<boolean> | undefined;
  return {
    server,
    url: listener.url,
    port: listener.port,
    close: (closeOptions = {}) => (closing ??= stop(closeOptions)),
  };
}
