import { SEED_WORKLOADS } from './workloads';

/** One line of an issue's table of targets: the service's req/s over a ceiling's, at least `atLeast`, per workload. */
export interface Goal {
  /** As the issue's table says it: where the service runs, and what it is measured against. */
  readonly serviceOn: string;
  readonly against: string;
  /** The two targets whose medians of the same run give the ratio. */
  readonly service: string;
  readonly ceiling: string;
  readonly workloads: readonly string[];
  readonly atLeast: number;
}

const every = SEED_WORKLOADS;

/** The service on memory against bare Koa on a Map, on every workload (issues 22 and 36). */
const MEMORY_ON_KOA: Goal = {
  serviceOn: 'memory',
  against: 'bare Koa + @koa/router',
  service: 'service · memory',
  ceiling: 'Koa + @koa/router + Map',
  workloads: every,
  atLeast: 0.85,
};

/** The service on SQLite against raw node:http and better-sqlite3, on every workload (issues 22 and 36). */
const SQLITE_ON_RAW: Goal = {
  serviceOn: 'SQLite',
  against: 'raw node:http + better-sqlite3, cached statements (same SQL)',
  service: 'service · SQLite',
  ceiling: 'node:http + better-sqlite3',
  workloads: every,
  atLeast: 0.6,
};

/** The service on PostgreSQL against Koa and pg running the same SQL, on the reads and writes (issues 22 and 36). */
const POSTGRESQL_ON_KOA: Goal = {
  serviceOn: 'PostgreSQL',
  against: 'Koa + @koa/router + pg (same SQL)',
  service: 'service · PostgreSQL',
  ceiling: 'Koa + @koa/router + pg',
  workloads: ['GET one', 'GET page of 50', 'POST', 'PUT'],
  atLeast: 0.9,
};

/** Issue 22's targets (benchmark, not tests), line for line. */
export const ISSUE_22_GOALS: readonly Goal[] = [
  POSTGRESQL_ON_KOA,
  {
    serviceOn: 'PostgreSQL',
    against: 'raw node:http + pg (same SQL)',
    service: 'service · PostgreSQL',
    ceiling: 'node:http + pg',
    workloads: ['stock -1 (hot row)'],
    atLeast: 0.9,
  },
  {
    serviceOn: 'PostgreSQL',
    against: 'raw node:http + pg (same SQL)',
    service: 'service · PostgreSQL',
    ceiling: 'node:http + pg',
    workloads: ['GET one'],
    atLeast: 0.65,
  },
  SQLITE_ON_RAW,
  MEMORY_ON_KOA,
];

const STORES = ['memory', 'SQLite', 'PostgreSQL'] as const;

/**
 * Issue 36's throughput targets: webhooks on (one subscriber) keep 0.80 of the stock −1 with them off; tracing sampled
 * at 10 % keeps 0.90 of tracing off on every store; and the platform's ceilings of issue 22, again.
 */
export const ISSUE_36_GOALS: readonly Goal[] = [
  ...(['SQLite', 'PostgreSQL'] as const).map((storage) => ({
    serviceOn: `${storage}, webhooks on (one subscriber)`,
    against: 'the same service, webhooks off',
    service: `service · ${storage}, webhooks on`,
    ceiling: `service · ${storage}`,
    workloads: ['stock -1 (hot row)'],
    atLeast: 0.8,
  })),
  ...STORES.map((storage) => ({
    serviceOn: `${storage}, tracing sampled at 10 %`,
    against: 'the same service, tracing off',
    service: `service · ${storage}, tracing on at 10 %`,
    ceiling: `service · ${storage}`,
    workloads: every,
    atLeast: 0.9,
  })),
  MEMORY_ON_KOA,
  SQLITE_ON_RAW,
  POSTGRESQL_ON_KOA,
];

/**
 * A delivery lag target: with webhooks on, a paced stock −1 at `share` of the req/s the same service keeps with them
 * off (saturated, in the same repetition) delivers with a p99 of at most `p99AtMostMs`, movement to receiver.
 */
export interface LagGoal {
  readonly serviceOn: string;
  /** The webhooks-on target; its baseline is the same service with webhooks off. */
  readonly service: string;
  readonly workload: string;
  readonly share: number;
  readonly p99AtMostMs: number;
}

/** The workload a webhooks-on target's lag is paced on, and the share of webhooks off's req/s it is paced at. */
export const LAG_WORKLOAD = 'stock -1 (hot row)';
export const LAG_SHARE = 0.8;

/** Issue 36's delivery lag: p99 ≤ 2 s at 80 % of the stock −1 throughput of webhooks off, on SQLite and PostgreSQL. */
export const ISSUE_36_LAG_GOALS: readonly LagGoal[] = (['SQLite', 'PostgreSQL'] as const).map((storage) => ({
  serviceOn: storage,
  service: `service · ${storage}, webhooks on`,
  workload: LAG_WORKLOAD,
  share: LAG_SHARE,
  p99AtMostMs: 2000,
}));

/** Issue 31's targets: the service's stock −1 against the least SQL a ledgered change needs, on each database. */
export const ISSUE_31_GOALS: readonly Goal[] = [
  {
    serviceOn: 'PostgreSQL',
    against: 'raw node:http + pg, one statement for the level and its numbered movement',
    service: 'service · PostgreSQL',
    ceiling: 'node:http + pg, a ledgered −1',
    workloads: ['stock -1 (hot row)'],
    atLeast: 0.8,
  },
  {
    serviceOn: 'SQLite',
    against: 'raw node:http + better-sqlite3, the level and its numbered movement in one transaction',
    service: 'service · SQLite',
    ceiling: 'node:http + better-sqlite3, a ledgered −1',
    workloads: ['stock -1 (hot row)'],
    atLeast: 0.6,
  },
];

/**
 * What a change may cost at most, per workload: the throughput it keeps (after ÷ before, at least) and the CPU per
 * request it adds (after ÷ before, at most), medians of the same run.
 */
export interface Bound {
  /** Whose bound it is, as the report names it. */
  readonly name: string;
  readonly workloads: readonly string[];
  readonly throughputAtLeast: number;
  readonly cpuAtMost: number;
}

/**
 * Issue 31's regression check, against the commit before it (`--compare-with` that checkout): no workload on any
 * store loses more than 5 % of its throughput or adds more than 5 % CPU per request.
 */
export const ISSUE_31_NO_REGRESSION: Bound = {
  name: "issue 31's regression check",
  workloads: [...SEED_WORKLOADS, 'hold and commit', 'stock -1 at a location'],
  throughputAtLeast: 0.95,
  cpuAtMost: 1.05,
};

/** A before and an after of the same workloads in one run: what one change (a runtime, an issue's work) bought. */
export interface Change {
  readonly change: string;
  readonly before: string;
  readonly after: string;
  /** What it may cost, if it is held to a bound: each of the bound's workloads is met, missed or not measured. */
  readonly bound?: Bound;
}

/** The earlier checkout issue 24's cost is measured against: the service as it was before stock by location. */
export const BEFORE_LOCATIONS = 'before-locations';

/** Issue 24's cost: per-location rows take at most 10 % of the single-location path's throughput. */
export const ISSUE_24_GOALS: readonly Goal[] = STORES.map((storage) => ({
  serviceOn: storage,
  against: `the service before stock by location (${BEFORE_LOCATIONS})`,
  service: `service · ${storage}`,
  ceiling: `service · ${storage} @ ${BEFORE_LOCATIONS}`,
  workloads: ['POST', 'PUT', 'stock -1 (hot row)', 'hold and commit'],
  atLeast: 0.9,
}));
