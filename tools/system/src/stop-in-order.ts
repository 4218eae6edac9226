import type { ChildProcess } from 'node:child_process';

export interface StoppableService {
  readonly name: string;
  readonly child: ChildProcess;
  /** Its exit code, or the signal that ended it. */
  readonly exited: Promise<number | string>;
}

const LATE = Symbol('late');

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** How `service` ended: within `withinMs` of its signal, or killed then. */
async function endingWithin(service: StoppableService, withinMs: number, onKill: (name: string) => void) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), withinMs)));
  const ending = await Promise.race([service.exited, late]);
  clearTimeout(timer);
  if (ending !== LATE) return ending;
  onKill(service.name);
  service.child.kill('SIGKILL');
  return service.exited;
}

/**
 * Stops the services one at a time, in the order given: each gets `signal`,
 * and the next one only once it has exited, or been killed `withinMs` after
 * its signal. Answers how each one ended, in the same order.
 */
export async function stopInOrder(
  services: readonly StoppableService[],
  signal: NodeJS.Signals,
  withinMs: number,
  onKill: (name: string) => void = () => {},
): Promise<(number | string)[]> {
  const endings: (number | string)[] = [];
  for (const service of services) {
    if (isRunning(service.child)) service.child.kill(signal);
    endings.push(await endingWithin(service, withinMs, onKill));
  }
  return endings;
}

/** Kills every service still running at once: a second Ctrl-C. */
export function killAll(services: readonly StoppableService[]): void {
  for (const service of services) if (isRunning(service.child)) service.child.kill('SIGKILL');
}
