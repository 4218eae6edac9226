import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpApp } from './create-http-app';
import type { Logger } from './logger';

export interface ServeOptions {
  readonly port: number;
  /** On SIGTERM: how long readiness answers 503 before the server stops accepting connections. */
  readonly shutdownDelayMs: number;
  /** On SIGTERM: how long in-flight requests may take before their connections are cut. */
  readonly shutdownGraceMs: number;
  /** Longest a request may take to arrive whole (Node's requestTimeout). */
  readonly requestTimeoutMs: number;
  /** Longest the request headers may take to arrive (Node's headersTimeout). */
  readonly headersTimeoutMs: number;
}

export interface RunningServer {
  readonly server: Server;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /**
   * Graceful stop: readiness turns 503, then (after shutdownDelayMs) the server
   * stops accepting connections, in-flight requests finish (connections still
   * busy after shutdownGraceMs are cut) and idle keep-alive connections close.
   * Safe to call more than once.
   */
  close(): Promise<void>;
}

/** Listens with the app and answers once it does. */
export async function serve(http: HttpApp, options: ServeOptions, logger: Logger): Promise<RunningServer> {
  const server = http.app.listen(options.port);
  server.requestTimeout = options.requestTimeoutMs;
  server.headersTimeout = Math.min(options.headersTimeoutMs, options.requestTimeoutMs);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;

  const stop = async () => {
    http.drain();
    if (options.shutdownDelayMs > 0) await sleep(options.shutdownDelayMs);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const grace = new AbortController();
    const graceOver = sleep(options.shutdownGraceMs, 'grace over' as const, { signal: grace.signal }).catch(() => 'closed' as const);
    const first = await Promise.race([closed.then(() => 'closed' as const), graceOver]);
    grace.abort();
    if (first === 'grace over') {
      logger.warn('shutdown grace period over: closing the remaining connections', { graceMs: options.shutdownGraceMs });
      server.closeAllConnections();
      await closed;
    }
  };
  let closing: Promise<void> | undefined;
  return { server, url: `http://127.0.0.1:${port}`, close: () => (closing ??= stop()) };
}
