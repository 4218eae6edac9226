import type { Logger } from './logger';

export interface Periodic {
  /** Stops the schedule and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `task` every `intervalMs`, never two runs at once, on a timer that does
 * not keep the process alive. A failing run is logged once, and its recovery
 * once, not every time.
 */
export function every(intervalMs: number, name: string, task: () => Promise<unknown>, logger: Logger): Periodic {
  let running: Promise<void> | undefined;
  let failing = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = task().then(
        () => {
          if (failing) logger.info(`${name} works again`);
          failing = false;
        },
        (error: unknown) => {
          if (!failing) logger.warn(`${name} failed; it will be tried again`, { error: String(error) });
          failing = true;
        },
      );
      void running.finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
