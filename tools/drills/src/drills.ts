import { concurrencyDrill, type ConcurrencySize, FULL_CONCURRENCY } from './drills/concurrency';
import { FULL_KILL, type KillSize, killNineDrill } from './drills/kill-nine';
import { FULL_POSTGRES, type PostgresSize, postgresRestartDrill } from './drills/postgres-restart';
import { FULL_RABBIT, type RabbitSize, rabbitmqRestartDrill } from './drills/rabbitmq-restart';
import { FULL_ROLLING, type RollingSize, rollingRestartDrill } from './drills/rolling-restart';
import { FULL_SOAK, type SoakSize, soakDrill } from './drills/soak';
import type { DrillResult } from './system';

export { concurrencyDrill, killNineDrill, postgresRestartDrill, rabbitmqRestartDrill, rollingRestartDrill, soakDrill };
export type { DrillResult };

/** Every drill, by name, at full size. */
export const DRILLS: Record<string, () => Promise<DrillResult>> = {
  concurrency: () => concurrencyDrill(FULL_CONCURRENCY),
  'rolling-restart': () => rollingRestartDrill(FULL_ROLLING),
  'kill-nine': () => killNineDrill(FULL_KILL),
  'postgres-restart': () => postgresRestartDrill(FULL_POSTGRES),
  'rabbitmq-restart': () => rabbitmqRestartDrill(FULL_RABBIT),
  soak: () => soakDrill(FULL_SOAK),
};

/** The sizes CI runs: the same drills, shorter and smaller. */
export const SHORT = {
  concurrency: { adjustments: 200, orders: 80, holds: 300 } satisfies ConcurrencySize,
  rolling: { workers: 4, quietMs: 1_500 } satisfies RollingSize,
  kill: { workers: 2, downMs: 1_000, betweenMs: 1_500 } satisfies KillSize,
  postgres: { workers: 2, quietMs: 1_500, downMs: 3_000 } satisfies PostgresSize,
  rabbit: { workers: 2, quietMs: 1_500, downMs: 2_000 } satisfies RabbitSize,
  soak: { minutes: 1, workers: 2, pauseMs: 20, judgeSlopes: false } satisfies SoakSize,
};
