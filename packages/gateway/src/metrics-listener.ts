import { displayUrl } from '@platform/runtime';
import type Koa from 'koa';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MetricsListener {
  /** http://<METRICS_HOST>:<port>, as a person on this machine opens it. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The operators' listener (METRICS_PORT on METRICS_HOST, loopback unless
 * told): what a scraper and a person on call read, kept off the public port.
 * A port it cannot have stops the start with one line that names the setting.
 */
export async function listenForOperators(
  app: Koa,
  { metricsPort, metricsHost }: { readonly metricsPort: number; readonly metricsHost: string },
): Promise<MetricsListener> {
  const handle = app.callback();
  const server = http.createServer((request, response) => void handle(request, response));
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  try {
    await new Promise<void>((resolve, reject) =>
      server.once('error', reject).listen(metricsPort, metricsHost, () => resolve()),
    );
  } catch (error) {
    const code = (error as { code?: string }).code;
    const where = `${metricsHost.includes(':') ? `[${metricsHost}]` : metricsHost}:${metricsPort} (METRICS_PORT)`;
    if (code === 'EADDRINUSE')
      throw new Error(
        `Cannot listen on ${where}: it is already in use. Set METRICS_PORT to another port, or 0 for a free one.`,
        { cause: error },
      );
    if (code === 'EACCES')
      throw new Error(
        `Cannot listen on ${where}: permission denied. Set METRICS_PORT above 1023, or 0 for a free one.`,
        { cause: error },
      );
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new Error(`Cannot listen on ${where}: METRICS_HOST is not an address of this machine.`, { cause: error });
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  return {
    url: displayUrl(metricsHost, port),
    port,
    // Scrapes are short: what is still open when the gateway stops is cut.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
