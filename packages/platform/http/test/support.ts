import type Koa from 'koa';
import type { LogEntry } from '../src';
import type { AddressInfo } from 'node:net';

export interface Listening {
  readonly url: string;
  close(): Promise<void>;
}

/** A Koa app on a real server, on a port the system picks. */
export async function listen(app: Koa): Promise<Listening> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A logger that keeps what it is told. */
export function recordingLogger() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const write = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, ...(fields && { fields }) });
  const log = ({ level, message, ...fields }: LogEntry) => write(level)(message, fields);
  return { lines, logger: { log, info: write('info'), warn: write('warn'), error: write('error') } };
}
