import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A webhook receiver on loopback: records what arrives and answers the status `answer` picks. */
export class Receiver {
  readonly received: Received[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(public answer: (request: Received) => number = () => 204) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Listens, on the port it had before when it is started again (a receiver that was down comes back). */
  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.received.push(request);
        res.statusCode = this.answer(request);
        res.end('a long answer '.repeat(10_000));
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
