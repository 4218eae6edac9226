import type Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createSampleApp, type SampleAppOptions } from '../src';

/** The contract the sample app's main serves. */
export const SPEC_FILE = fileURLToPath(new URL('../../../docs/sample-app.openapi.yaml', import.meta.url));

export interface SampleServer {
  readonly app: Koa;
  readonly url: string;
  close(): Promise<void>;
}

/** The sample app on a real server, on loopback, on a port the system picks. */
export async function startSampleServer(options: Partial<SampleAppOptions> = {}): Promise<SampleServer> {
  const app = createSampleApp({ specFile: SPEC_FILE, ...options });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // fetch keeps connections alive; without this close() waits for them to time out.
        server.closeAllConnections();
      }),
  };
}
