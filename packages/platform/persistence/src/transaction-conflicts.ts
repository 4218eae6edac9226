import { UnavailableError } from '@platform/kernel';

/**
 * PostgreSQL aborted a transaction because of other ones, not because of what
 * it did: it was the victim of a deadlock (40P01) or could not be serialised
 * (40001). Nothing of it remains, and running it again may well succeed.
 * MikroORM wraps both as DeadlockException; the driver's code is kept below it.
 */
export function isTransactionConflict(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause && depth < 5; depth++) {
    const { code, name } = cause as { code?: unknown; name?: unknown };
    if (code === '40P01' || code === '40001' || name === 'DeadlockException') return true;
    cause = (cause as { previous?: unknown }).previous ?? (cause as { cause?: unknown }).cause;
  }
  return false;
}

export interface ConflictRetrySettings {
  /** How many times the transaction runs at most. */
  readonly attempts?: number;
  /**
   * The first wait before running it again; it grows with each attempt, with jitter so the rivals do not meet again.
   */
  readonly backoffMs?: number;
}

/** How long a client is told to wait when every attempt conflicted. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Runs `transaction` and, when PostgreSQL aborted it as a conflict, runs it
 * again from the start. Safe for a unit of work: its work only reads and
 * writes the database it rolled back (network calls are made before a
 * transaction opens), so a second run is as the first would have been. When
 * every attempt conflicts, throws UnavailableError: HTTP answers 503 with
 * Retry-After, and a consumer holds the message and retries it without
 * counting the failure toward dead-lettering.
 */
export async function retryingConflicts<T>(
  transaction: () => Promise<T>,
  { attempts = 4, backoffMs = 10 }: ConflictRetrySettings = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (!isTransactionConflict(error)) throw error;
      if (attempt >= attempts) {
        throw new UnavailableError(
          'DATABASE_UNAVAILABLE',
          `Concurrent changes conflicted with this one on each of its ${attempts} attempts (a deadlock or a serialisation failure); try again.`,
          RETRY_AFTER_SECONDS,
          { cause: error },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, backoffMs * attempt * (0.5 + Math.random())));
    }
  }
}
