import { WORKLOADS } from './workloads';

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

const every = WORKLOADS.map((w) => w.name);

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

/** A before and an after of the same workloads in one run: what one change (a runtime, an issue's work) bought. */
export interface Change {
  readonly change: string;
  readonly before: string;
  readonly after: string;
}
