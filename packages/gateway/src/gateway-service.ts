import { Apis } from '@commerce/contracts';
import { createTokenVerifier } from '@platform/http';
import { type RunningService, startService } from '@platform/http/service';
import { createLogger, type Logger, redactedUrl } from '@platform/runtime';
import { Redis } from 'ioredis';
import { once } from 'node:events';
import { Agent } from 'undici';
import type { GatewayConfig } from './config';
import { createGatewayApp } from './gateway-app';
import { listenForOperators, type MetricsListener } from './metrics-listener';
import { InMemoryRateCounter, type RateCounter, RedisRateCounter } from './rate-limit';
import { UpstreamGroup } from './upstream-group';

/** The first segments of stock's routes: each goes to stock, and the paths under it. */
const STOCK_PATHS = [
  '/api/products',
  '/api/product-imports',
  '/api/reservations',
  '/api/locations',
  '/api/stock-transfers',
  '/api/shipments',
  '/api/returns',
  '/api/webhook-subscriptions',
];

export interface StartGatewayOptions {
  readonly logger?: Logger;
}

/** The audiences of the APIs behind the gateway: a token for either passes the edge, and its service checks its own. */
export const AUDIENCES = [Apis.stock.audience, Apis.sales.audience] as const;

/** The gateway as it runs: the public server, and the operators' listener. */
export interface RunningGateway extends RunningService<Logger> {
  /** The metrics listener (METRICS_PORT): /metrics, and readiness naming each instance. */
  readonly metricsUrl: string;
}

/**
 * The gateway as main starts it: one undici Agent for every upstream (its
 * keep-alive pools), a group per service whose instances' readiness is asked
 * in the background, the edge's token check when AUTH_ISSUER is set, the
 * rate limit counted in Redis when REDIS_URL is set, else (and while Redis
 * does not answer) in this process, and the metrics listener beside the
 * public port: a port it cannot have stops the start.
 */
export async function startGateway(config: GatewayConfig, options: StartGatewayOptions = {}): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger('gateway', config.logLevel, config.logFormat);
  // HTTP/1.1 upstream, as the hop-by-hop handling assumes: undici 8 speaks HTTP/2 to a TLS upstream that offers it.
  const dispatcher = new Agent({
    keepAliveTimeout: 4_000,
    connect: { timeout: Math.min(config.upstreamTimeoutMs, 5_000) },
    allowH2: false,
  });
  const group = (name: string, urls: readonly string[]) =>
    new UpstreamGroup({ name, urls, checkMs: config.upstreamCheckMs, dispatcher, logger });
  const stock = group('stock', config.stockUrl);
  const sales = group('sales', config.salesUrl);
  const identity = group('identity', config.identityUrl);
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
        lazyConnect: false,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: 250,
        connectTimeout: 2_000,
      })
    : undefined;
  redis?.on('error', () => undefined); // said once by the counter, not on every reconnection attempt
  const shared = redis && new RedisRateCounter(redis, logger);
  const counter: RateCounter = shared ?? new InMemoryRateCounter();
  // Counting in Redis from the first request when it is up; when it is not, the gateway starts anyway and counts in
  // this process until it is.
  if (redis)
    await once(redis, 'ready', { signal: AbortSignal.timeout(2_000) }).catch(() =>
      shared?.fallBack(`not reachable at start: ${redactedUrl(config.redisUrl)}`),
    );
  if (!config.authIssuer)
    logger.warn('tokens are not checked at the edge: AUTH_ISSUER is not set (the services may still check them)');
  const verifier = config.authIssuer
    ? createTokenVerifier({
        issuer: config.authIssuer,
        audience: AUDIENCES,
        ...(config.authDiscoveryUrl && { discoveryUrl: config.authDiscoveryUrl }),
        logger,
      })
    : undefined;
  const release = async () => {
    await dispatcher.close().catch(() => undefined);
    redis?.disconnect();
  };
  let metrics: MetricsListener | undefined;
  const starting = startService(config, async () => {
    const http = createGatewayApp({
      logger,
      groups: [stock, sales, identity],
      routes: [
        // Every path of stock's API (docs/openapi.yaml), so a client of the gateway reaches all of it.
        ...STOCK_PATHS.map((prefix) => ({ prefix, upstream: stock })),
        { prefix: '/api/orders', upstream: sales },
        { prefix: '/api/payment-events', upstream: sales },
        { prefix: '/identity', upstream: identity },
      ],
      dispatcher,
      timeoutMs: config.upstreamTimeoutMs,
      bodyLimitBytes: config.bodyLimitBytes,
      publicUrl: config.publicUrl,
      host: config.host,
      ...(verifier && { verifier }),
      rateLimit: { counter, perMinute: config.rateLimitPerMinute },
      apis: [
        { name: 'Stock API', slug: 'stock', file: config.stockOpenApiFile, scopes: Apis.stock.scopes },
        { name: 'Sales API', slug: 'sales', file: config.salesOpenApiFile, scopes: Apis.sales.scopes },
      ].filter((api) => api.file !== ''),
      ...(config.backOfficeDir && { backOfficeDir: config.backOfficeDir }),
    });
    metrics = await listenForOperators(http.operations, config);
    return {
      logger,
      http,
      startBackground: () => {
        for (const upstream of [stock, sales, identity]) upstream.start();
        return [{ stop: async () => [stock, sales, identity].forEach((upstream) => upstream.stop()) }];
      },
      dispose: async () => {
        await metrics?.close();
        await release();
      },
    };
  });
  // A start that fails (either port taken) lets go of the upstream pools and Redis too: tests start many gateways in
  // one process.
  const service = await starting.catch(async (error: unknown) => {
    await release();
    throw error;
  });
  return { ...service, metricsUrl: metrics!.url };
}
