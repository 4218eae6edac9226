import type { Logger } from './logger';

export interface Started {
  readonly logger: Logger;
  close(): Promise<void>;
}

/**
 * A service's process: starts it, then stops it gracefully on SIGINT or
 * SIGTERM and exits 0 (1 when stopping failed). A second signal while
 * stopping is ignored.
 */
export async function runMain(start: () => Promise<Started>): Promise<void> {
  const service = await start();
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      service.logger.info('stopping', { signal });
      service.close().then(
        () => {
          service.logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          service.logger.error('failed to stop cleanly', { error: String(error) });
          process.exit(1);
        },
      );
    });
  }
}
