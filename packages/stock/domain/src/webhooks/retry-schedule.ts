/** How long deliveries are retried for, counted from when the delivery was made. */
export const RETRY_FOR_MS = 3 * 86_400_000;

const FIRST_RETRY_MS = 5_000;
const LONGEST_WAIT_MS = 12 * 3_600_000;

/**
 * The wait before the next attempt after `failedAttempts` failures: 5 s, then three times as long each time (15 s,
 * 45 s, 2¼ min, 6¾ min, 20 min, 1 h, 3 h, 9 h), then every 12 h; docs/operations.md lists it.
 */
export function retryDelayMs(failedAttempts: number): number {
  return Math.min(FIRST_RETRY_MS * 3 ** Math.max(0, failedAttempts - 1), LONGEST_WAIT_MS);
}
