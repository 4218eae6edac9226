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

/** Issue 22's targets (benchmark, not tests), line for line. */
export const ISSUE_22_GOALS: readonly Goal[] = [
  {
    serviceOn: 'PostgreSQL',
    against: 'Koa + @koa/router + pg (same SQL)',
    service: 'service · PostgreSQL',
    ceiling: 'Koa + @koa/router + pg',
    workloads: ['GET one', 'GET page of 50', 'POST', 'PUT'],
    atLeast: 0.9,
  },
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
  {
    serviceOn: 'SQLite',
    against: 'raw node:http + better-sqlite3, cached statements (same SQL)',
    service: 'service · SQLite',
    ceiling: 'node:http + better-sqlite3',
    workloads: every,
    atLeast: 0.6,
  },
  {
    serviceOn: 'memory',
    against: 'bare Koa + @koa/router',
    service: 'service · memory',
    ceiling: 'Koa + @koa/router + Map',
    workloads: every,
    atLeast: 0.85,
  },
];

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
export const ISSUE_24_GOALS: readonly Goal[] = (['memory', 'SQLite', 'PostgreSQL'] as const).map((storage) => ({
  serviceOn: storage,
  against: `the service before stock by location (${BEFORE_LOCATIONS})`,
  service: `service · ${storage}`,
  ceiling: `service · ${storage} @ ${BEFORE_LOCATIONS}`,
  workloads: ['POST', 'PUT', 'stock -1 (hot row)', 'hold and commit'],
  atLeast: 0.9,
}));
