import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase } from './postgres-scratch';

export type Backend = 'memory' | 'sqlite' | 'postgresql';

export const BACKENDS: readonly Backend[] = ['memory', 'sqlite', 'postgresql'];

/** A fresh, empty database of the backend's kind, and how to remove it. */
export async function scratchDatabaseFor(
  backend: Backend,
  context: Mocha.Context,
  name = 'service',
): Promise<{ url: string; cleanUp: () => Promise<void> }> {
  if (backend === 'memory') return { url: 'memory:', cleanUp: async () => {} };
  if (backend === 'sqlite') {
    const directory = mkdtempSync(join(tmpdir(), `${name}-`));
    return {
      url: `sqlite:${join(directory, `${name}.db`)}`,
      cleanUp: async () => rmSync(directory, { recursive: true, force: true }),
    };
  }
  const database = await createScratchDatabase(context);
  return { url: database.url, cleanUp: database.drop };
}

/** A service a test starts in its own process: an ephemeral port on loopback, everything in memory, no drain delay. */
export const IN_THIS_PROCESS = { port: 0, host: '127.0.0.1', databaseUrl: 'memory:', shutdownDelayMs: 0 } as const;
