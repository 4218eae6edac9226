import { clientErrorHandler } from '@platform/koa';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createSampleApp } from './create-sample-app';
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

const server = createSampleApp({ specFile }).listen(port);
server.on('clientError', clientErrorHandler());
server.once('listening', () => {
  // Read back the bound port: PORT=0 asks the system for a free one.
  const { port: bound } = server.address() as AddressInfo;
  console.log(`sample app listening on http://localhost:${bound} (docs at /swagger)`);
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
