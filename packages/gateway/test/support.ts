import { capturingLogger } from '@platform/runtime';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DEFAULT_CONFIG, type GatewayConfig, startGateway } from '../src';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface TestUpstream {
  readonly url: string;
  readonly port: number;
  /** Every request it got, its body read whole. */
  readonly seen: SeenRequest[];
  /** How many times its /health/ready was asked (not in `seen`). */
  readonly readinessChecks: number;
  /** Stops listening and cuts every connection, as a killed process would. */
  kill(): Promise<void>;
  /** Listens again on the same port. */
  revive(): Promise<void>;
}

export type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void | Promise<void>;

/** Answers `{ upstream, path }` with 200, ready on /health/ready: what most tests route to. */
export const echo =
  (name: string): Handler =>
  (request, response) => {
    if (request.url === '/health/ready') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ upstream: name, path: request.url }));
  };

/** Ready on /health/ready, and cuts the connection of every other request once it has arrived whole. */
export const breaksConnections: Handler = (request, response) => {
  if (request.url === '/health/ready') return void response.writeHead(200).end();
  request.socket.destroy();
};

/** A real HTTP server on an ephemeral port of loopback that records what reaches it. */
export async function startUpstream(handler: Handler, port = 0): Promise<TestUpstream> {
  const seen: SeenRequest[] = [];
  let checks = 0;
  let server: http.Server;
  const listen = async (onPort: number) => {
    server = http.createServer((request, response) => {
      // Health checks are not what the tests look at.
      const record = request.url !== '/health/ready';
      if (!record) checks++;
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        if (record) seen.push({ method: request.method!, url: request.url!, headers: request.headers, body });
        void handler(request, response, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(onPort, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  const bound = await listen(port);
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    seen,
    get readinessChecks() {
      return checks;
    },
    async kill() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
    async revive() {
      await listen(bound);
    },
  };
}

/** A port nothing listens on: bound, then released. */
export async function deadPort(): Promise<string> {
  const upstream = await startUpstream(() => undefined);
  await upstream.kill();
  return upstream.url;
}

export interface GatewayUnderTest {
  readonly url: string;
  /** The operators' listener (METRICS_PORT): /metrics, and readiness naming each instance. */
  readonly metricsUrl: string;
  readonly logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

const DOCS = join(import.meta.dirname, '..', '..', '..', 'docs');

/** The descriptions main.ts hands the gateway, for tests that serve /swagger. */
export const OPENAPI_FILES = {
  stockOpenApiFile: join(DOCS, 'openapi.yaml'),
  salesOpenApiFile: join(DOCS, 'sales.openapi.yaml'),
};

/**
 * The gateway as main starts it, on ephemeral ports (its own and the metrics listener's), with upstream checks every
 * 100 ms and no rate limit unless told.
 */
export async function startTestGateway(config: Partial<GatewayConfig>): Promise<GatewayUnderTest> {
  const logs: Record<string, unknown>[] = [];
  const gateway = await startGateway(
    {
      ...DEFAULT_CONFIG,
      ...OPENAPI_FILES,
      port: 0,
      host: '127.0.0.1',
      metricsPort: 0,
      shutdownDelayMs: 0,
      upstreamCheckMs: 100,
      rateLimitPerMinute: 0,
      ...config,
    },
    { logger: capturingLogger('gateway', logs) },
  );
  return {
    url: gateway.url,
    metricsUrl: gateway.metricsUrl,
    logs,
    stop: async () => void (await gateway.close({ immediate: true })),
  };
}

/** Stock's instances in rotation as given, and sales and identity on `others`: what most gateway tests route to. */
export function upstreams(stock: readonly string[], others: string): Partial<GatewayConfig> {
  return { stockUrl: stock, salesUrl: [others], identityUrl: [others] };
}

/** What readiness names on the metrics listener: each service (up, down) and each instance (ready, not ready). */
export async function readinessChecks(gateway: GatewayUnderTest): Promise<Record<string, string>> {
  const body = (await (await fetch(`${gateway.metricsUrl}/health/ready`)).json()) as { checks: Record<string, string> };
  return body.checks;
}
