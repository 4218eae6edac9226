import { clientErrorHandler } from '@platform/koa';
import { displayUrl, isLoopback } from '@platform/runtime';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createSampleApp } from './create-sample-app';
import { parseHost } from './parse-host';
import { parsePort } from './parse-port';

let port: number;
try {
  port = parsePort(process.env.PORT);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

/** Where this workspace keeps the sample app's contract; SPEC_FILE points elsewhere. */
const specFile = process.env.SPEC_FILE ?? fileURLToPath(new URL('../../../docs/sample-app.openapi.yaml', import.meta.url));

const host = parseHost(process.env.HOST);
const server = createSampleApp({ specFile }).listen(port, host);
server.on('clientError', clientErrorHandler());
server.once('listening', () => {
  // Read back the bound port: PORT=0 asks the system for a free one.
  const { port: bound } = server.address() as AddressInfo;
  const where = isLoopback(host) ? `; on ${host} only (set HOST to listen elsewhere)` : '';
  console.log(`sample app listening on ${displayUrl(host, bound)} (node ${process.version}; docs at /swagger)${where}`);
});
server.once('error', (error) => {
  console.error(`sample app failed to start: ${error.message}`);
  process.exit(1);
});

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    // Idle keep-alive sockets would otherwise hold close() open until they time out.
    server.close((error) => process.exit(error ? 1 : 0));
    server.closeIdleConnections();
  });
}
