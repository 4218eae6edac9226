import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase } from './postgres-scratch';

export interface ScratchUrl {
  readonly url: string;
  /** Removes the database: drops it, or deletes the SQLite file's folder. */
  readonly cleanUp: () => Promise<void>;
}

/**
 * An empty database of the dialect for one suite: a scratch PostgreSQL database (which may skip the suite, see
 * createScratchDatabase), or the SQLite file `{name}.db` in a folder of its own.
 */
export async function scratchUrl(
  dialect: 'sqlite' | 'postgresql',
  context: Mocha.Context,
  name: string,
): Promise<ScratchUrl> {
  if (dialect === 'postgresql') {
    const database = await createScratchDatabase(context);
    return { url: database.url, cleanUp: database.drop };
  }
  const directory = mkdtempSync(join(tmpdir(), `${name}-sqlite-`));
  return {
    url: `sqlite:${join(directory, `${name}.db`)}`,
    cleanUp: async () => rmSync(directory, { recursive: true, force: true }),
  };
}
