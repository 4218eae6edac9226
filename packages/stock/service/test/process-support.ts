import { type ServiceProcess, startServiceProcess } from '@platform/test-kit';
import { join } from 'node:path';

export type { ServiceProcess };

export const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');

/**
 * `main.ts` of the stock service in a process of its own, with the environment given, HOST unset unless it says
 * otherwise.
 */
export function startProcess(env: Record<string, string | undefined>, options: { cwd?: string } = {}): ServiceProcess {
  return startServiceProcess(MAIN, { HOST: undefined, ...env }, options);
}
