import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A collector that takes every OTLP/HTTP export and keeps nothing, on loopback: what a traced target exports to, so
 * that the bench measures the service's side of tracing and not a collector's.
 */
export async function startOtlpSink(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
