import { randomUUID } from 'node:crypto';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  /** On SIGTERM: how long the server keeps serving, readiness 503 and every response `Connection: close`, before it stops accepting. */
  readonly shutdownDelayMs: number;
  /** On SIGTERM: how long in-flight requests may take before their connections are cut. */
  readonly shutdownGraceMs: number;
}

export interface Listener {
  readonly server: Server;
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
   * Graceful stop: readiness turns 503 and every response asks its client to
   * close the connection; after shutdownDelayMs the server stops accepting,
   * in-flight requests finish (those still running after shutdownGraceMs are
   * cut) and idle connections close. Answers false when it had to cut
   * requests. Safe to call more than once.
   */
  close(options?: CloseOptions): Promise<boolean>;
}

/** Until the service is ready, every request gets a 503 that says so. */
function starting(_request: http.IncomingMessage, response: http.ServerResponse): void {
  const body = JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'The service is starting.', code: 'NOT_READY' });
  response.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1', 'x-request-id': randomUUID(), 'content-length': Buffer.byteLength(body) });
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
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host || undefined, () => resolve()));
  } catch (error) {
    const code = (error as { code?: string }).code;
    const where = host ? `${host}:${port}` : `port ${port}`;
    if (code === 'EADDRINUSE') throw new Error(`Cannot listen on ${where}: it is already in use. Stop what uses it, or set PORT to another port.`);
    if (code === 'EACCES') throw new Error(`Cannot listen on ${where}: permission denied. Use a port above 1023, or set PORT.`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new Error(`Cannot listen on ${where}: HOST is not an address of this machine.`);
    throw error;
  }
  const bound = (server.address() as AddressInfo).port;
  return {
    server,
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Hands the listener's requests to the app, and answers how to stop gracefully. */
export function serve(listener: Listener, http: HttpApp, options: ServeOptions, logger: Logger): RunningServer {
  const { server } = listener;
  server.removeListener('request', starting);
  server.on('request', http.app.callback());
  server.on('clientError', clientErrorHandler(logger));

  const stop = async ({ immediate = false }: CloseOptions): Promise<boolean> => {
    http.drain();
    if (options.shutdownDelayMs > 0 && !immediate) await sleep(options.shutdownDelayMs);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const grace = new AbortController();
    const graceOver = sleep(options.shutdownGraceMs, 'grace over' as const, { signal: grace.signal }).catch(() => 'closed' as const);
    const first = await Promise.race([closed.then(() => 'closed' as const), graceOver]);
    grace.abort();
    if (first === 'closed') return true;
    logger.warn('shutdown grace period over: closing the remaining connections', { graceMs: options.shutdownGraceMs });
    server.closeAllConnections();
    await closed;
    return false;
  };
  let closing: Promise<boolean> | undefined;
  return { server, url: listener.url, port: listener.port, close: (closeOptions = {}) => (closing ??= stop(closeOptions)) };
}
