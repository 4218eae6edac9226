import type { Logger } from './logger';

export interface Started {
  readonly logger: Logger;
  /** Stops gracefully; answers false when it had to cut work (requests, a database that would not close). */
  close(options?: { immediate?: boolean }): Promise<boolean | void>;
}

/** The first line of an error's message: what a person needs, without a stack trace. */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim() || (error as Error)?.name || 'unknown error';
}

/**
 * A service's process. A failure to start is one line on stderr and exit 1,
 * never a stack trace. SIGTERM stops gracefully (with the drain delay load
 * balancers need); SIGINT, a person's Ctrl-C, skips the delay. Exit 0 after a
 * clean stop, 1 when work had to be cut. A second signal while stopping is ignored.
 */
export async function runMain(name: string, start: () => Promise<Started>): Promise<void> {
  let service: Started;
  try {
    service = await start();
  } catch (error) {
    process.stderr.write(`${name} failed to start: ${oneLine(error)}\n`);
    process.exit(1);
  }
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      service.logger.info('stopping', { signal });
      service.close({ immediate: signal === 'SIGINT' }).then(
        (clean) => {
          service.logger.info(clean === false ? 'stopped, cutting work that had not finished' : 'stopped');
          process.exit(clean === false ? 1 : 0);
        },
        (error: unknown) => {
          service.logger.error('failed to stop cleanly', { error: oneLine(error) });
          process.exit(1);
        },
      );
    });
  }
}
