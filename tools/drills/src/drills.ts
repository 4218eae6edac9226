import { concurrencyDrill, type ConcurrencySize, FULL_CONCURRENCY } from './drills/concurrency';
import { FULL_KILL, type KillSize, killNineDrill } from './drills/kill-nine';
import { FULL_POSTGRES, type PostgresSize, postgresRestartDrill } from './drills/postgres-restart';
import { FULL_RABBIT, type RabbitSize, rabbitmqRestartDrill } from './drills/rabbitmq-restart';
import { FULL_ROLLING, type RollingSize, rollingRestartDrill } from './drills/rolling-restart';
import { FULL_SOAK, type SoakSize, soakDrill } from './drills/soak';
import type { DrillResult } from './system';

export { stopAll } from './cluster';
export { concurrencyDrill, killNineDrill, postgresRestartDrill, rabbitmqRestartDrill, rollingRestartDrill, soakDrill };
export type { DrillResult };

/** The sizes CI runs: the same drills, shorter and smaller. */
export const SHORT = {
  concurrency: { adjustments: 200, orders: 80, holds: 300 } satisfies ConcurrencySize,
  rolling: { workers: 4, quietMs: 1_500 } satisfies RollingSize,
  kill: { workers: 2, downMs: 1_000, betweenMs: 1_500 } satisfies KillSize,
  postgres: { workers: 2, quietMs: 1_500, downMs: 3_000 } satisfies PostgresSize,
  rabbit: { workers: 2, quietMs: 1_500, downMs: 2_000 } satisfies RabbitSize,
  soak: {
    minutes: 1,
    workers: 2,
    pauseMs: 20,
    judgeSlopes: false,
    retentionSeconds: 10,
    sweepMs: 5_000,
  } satisfies SoakSize,
};

/** Every drill by the name `pnpm drills <name>` takes, in the order they run, at full size and at CI's. */
export const DRILLS: Record<string, { full(): Promise<DrillResult>; short(): Promise<DrillResult> }> = {
  concurrency: { full: () => concurrencyDrill(FULL_CONCURRENCY), short: () => concurrencyDrill(SHORT.concurrency) },
  'rolling-restart': { full: () => rollingRestartDrill(FULL_ROLLING), short: () => rollingRestartDrill(SHORT.rolling) },
  'kill-nine': { full: () => killNineDrill(FULL_KILL), short: () => killNineDrill(SHORT.kill) },
  'postgres-restart': {
    full: () => postgresRestartDrill(FULL_POSTGRES),
    short: () => postgresRestartDrill(SHORT.postgres),
  },
  'rabbitmq-restart': {
    full: () => rabbitmqRestartDrill(FULL_RABBIT),
    short: () => rabbitmqRestartDrill(SHORT.rabbit),
  },
  soak: { full: () => soakDrill(FULL_SOAK), short: () => soakDrill(SHORT.soak) },
};
