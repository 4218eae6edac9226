import { type ServiceProcess, startServiceProcess } from '@platform/test-kit';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * `script` of the identity service's src/ (main.ts, rotate-keys-main.ts) in a process of its own, as the root package's
 * scripts run it.
 */
export function runScript(script: string, env: Record<string, string>): ServiceProcess {
  return startServiceProcess(`${SRC}${script}`, { SHUTDOWN_DELAY_MS: '0', ...env });
}

/** The issuer of the "listening" line, once it is written. */
export async function issuerOf(running: ServiceProcess): Promise<string> {
  return String((await running.listening()).issuer);
}
