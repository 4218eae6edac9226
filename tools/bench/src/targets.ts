import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type Storage = 'memory' | 'sqlite' | 'postgresql';

export interface Target {
  readonly name: string;
  readonly storage: Storage;
  /** The script under targets/ that serves it. */
  readonly script: string;
  /** The baseline this target is measured against, if it is not one itself. */
  readonly baseline?: string;
  /** What the target's process gets on top of the harness's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Which workloads it runs, when not all (names, as --workloads takes them). */
  readonly workloads?: readonly string[];
  /**
   * A layer in front of its baseline (a hop, a check): the report adds what it costs in p50 at a fixed rate, to the
   * microsecond.
   */
  readonly addsLatency?: boolean;
  /**
   * WEBHOOKS=on with a receiver on loopback subscribed to stock.level.changed: the run measures the delivery lag
   * (movement → receiver) while the stock workloads run, beside the throughput they keep.
   */
  readonly webhookLag?: boolean;
  /** The Node that runs it, when not the harness's own (an earlier checkout on the Node it ran on). */
  readonly node?: string;
  /** Where it runs from (its tsx, its tsconfig), when not this workspace. */
  readonly cwd?: string;
  /** An earlier checkout's service that already keeps stock by location (runs the workloads that need it). */
  readonly hasLocations?: boolean;
}

/** Where a traced target's spans go: the harness's own sink (otlp-sink.ts), whose address is known once it listens. */
export const OTLP_SINK = '$OTLP_SINK';

/**
 * The standard variables that turn tracing on, sampling `ratio` of the traces (as a deployment would, parent-based),
 * exporting OTLP over http/protobuf, the SDK's default, to the harness's sink.
 */
export function tracingAt(ratio: number): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: OTLP_SINK,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: String(ratio),
  };
}

/** Webhooks on, delivering to the harness's receiver on loopback, polling as often as a deployment would at most. */
const WEBHOOKS_ON: Readonly<Record<string, string>> = {
  WEBHOOKS: 'on',
  // A fixed bench-only key: the subscriptions of a scratch database.
  WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_POLL_MS: '50',
};

/** A target's environment with the sink's address in place of OTLP_SINK. */
export function withSink(env: Readonly<Record<string, string>>, endpoint: string): Record<string, string> {
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value === OTLP_SINK ? endpoint : value]));
}

/** The service runs as `pnpm start` runs it: info access log on stdout, metrics, request ids. */
export const TARGETS: readonly Target[] = [
  { name: 'service · memory', storage: 'memory', script: 'service.ts', baseline: 'Koa + @koa/router + Map' },
  {
    name: 'service · memory, access log off',
    storage: 'memory',
    script: 'service.ts',
    baseline: 'Koa + @koa/router + Map',
    env: { LOG_LEVEL: 'warn' },
  },
  { name: 'service · SQLite', storage: 'sqlite', script: 'service.ts', baseline: 'node:http + better-sqlite3' },
  // Tracing off is the rows above (no OTEL_EXPORTER_OTLP_ENDPOINT); on, at 10 %, against them (issue 26).
  {
    name: 'service · memory, tracing on at 10 %',
    storage: 'memory',
    script: 'service.ts',
    baseline: 'service · memory',
    env: tracingAt(0.1),
    addsLatency: true,
  },
  {
    name: 'service · SQLite, tracing on at 10 %',
    storage: 'sqlite',
    script: 'service.ts',
    baseline: 'service · SQLite',
    env: tracingAt(0.1),
    addsLatency: true,
  },
  { name: 'service · PostgreSQL', storage: 'postgresql', script: 'service.ts', baseline: 'node:http + pg' },
  {
    name: 'service · PostgreSQL, tracing on at 10 %',
    storage: 'postgresql',
    script: 'service.ts',
    baseline: 'service · PostgreSQL',
    env: tracingAt(0.1),
    addsLatency: true,
  },
  // Webhooks on (issue 26): every stock −1 writes a stock.level.changed a receiver on loopback gets; the lag from the
  // movement to the receiver, p50 and p99, while the load runs, and the throughput the load keeps against the rows
  // above.
  {
    name: 'service · SQLite, webhooks on',
    storage: 'sqlite',
    script: 'service.ts',
    baseline: 'service · SQLite',
    env: WEBHOOKS_ON,
    workloads: ['stock -1 (hot row)'],
    webhookLag: true,
  },
  {
    name: 'service · PostgreSQL, webhooks on',
    storage: 'postgresql',
    script: 'service.ts',
    baseline: 'service · PostgreSQL',
    env: WEBHOOKS_ON,
    workloads: ['stock -1 (hot row)'],
    webhookLag: true,
  },
  {
    name: 'gateway → service · memory',
    storage: 'memory',
    script: 'gateway.ts',
    baseline: 'service · memory',
    workloads: ['GET one'],
    addsLatency: true,
  },
  {
    name: 'service · memory, tokens checked',
    storage: 'memory',
    script: 'service-with-tokens.ts',
    baseline: 'service · memory',
    workloads: ['GET one', 'POST'],
    addsLatency: true,
  },
  {
    name: 'gateway → service · memory, tokens checked at both',
    storage: 'memory',
    script: 'gateway.ts',
    env: { GATEWAY_TOKENS: 'on' },
    baseline: 'service · memory, tokens checked',
    workloads: ['GET one'],
    addsLatency: true,
  },
  { name: 'Koa + @koa/router + Map', storage: 'memory', script: 'bare-koa.ts', baseline: 'node:http + Map' },
  { name: 'node:http + Map', storage: 'memory', script: 'raw-map.ts' },
  { name: 'node:http + better-sqlite3', storage: 'sqlite', script: 'raw-sqlite.ts' },
  { name: 'node:http + pg', storage: 'postgresql', script: 'raw-pg.ts' },
  // The least SQL a ledgered stock change needs (issue 31), on tables of their own: the ceilings of the stock −1.
  {
    name: 'node:http + pg, a ledgered −1',
    storage: 'postgresql',
    script: 'raw-pg-ledger.ts',
    workloads: ['stock -1 (hot row)'],
  },
  {
    name: 'node:http + better-sqlite3, a ledgered −1',
    storage: 'sqlite',
    script: 'raw-sqlite-ledger.ts',
    workloads: ['stock -1 (hot row)'],
  },
  { name: 'Koa + @koa/router + pg', storage: 'postgresql', script: 'koa-pg.ts', baseline: 'node:http + pg' },
  {
    name: 'node:http + pg, not prepared',
    storage: 'postgresql',
    script: 'raw-pg-unprepared.ts',
    baseline: 'node:http + pg',
  },
  { name: 'Fastify + pg', storage: 'postgresql', script: 'fastify-pg.ts', baseline: 'node:http + pg' },
];

/**
 * The stock service of another checkout of this workspace (an earlier commit,
 * installed), one row per service target of this one (or those named in
 * `only`), run from that checkout with its own tsx, on `node` if given.
 */
export function servicesAt(
  checkout: string,
  label: string,
  { node, only }: { node?: string; only?: readonly string[] } = {},
): Target[] {
  // Tracing and webhooks are this checkout's: an earlier one has neither to turn on (its webhook routes answer 404).
  const sameFeatures = (t: Target) => !Object.keys(t.env ?? {}).some((name) => /^(OTEL_|WEBHOOK)/.test(name));
  const rows = TARGETS.filter((t) => t.script === 'service.ts' && sameFeatures(t) && (!only || only.includes(t.name)));
  // Stock by location came with its routes (commit 6137472), later in a feature folder: a checkout that has them runs
  // the workloads that need it.
  const hasLocations = ['src/locations-router.ts', 'src/locations/locations-router.ts'].some((router) =>
    existsSync(join(checkout, 'packages/stock/http-koa', router)),
  );
  return rows.map((t) => ({
    ...t,
    name: `${t.name} @ ${label}`,
    script: 'service-at.ts',
    env: { ...t.env, SERVICE_ROOT: checkout },
    cwd: checkout,
    hasLocations,
    ...(node && { node }),
  }));
}
