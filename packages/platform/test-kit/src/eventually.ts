/** What a check answers while the awaited thing has not happened yet: undefined or false. */
type Waited<T> = T | undefined | false;

/**
 * Asks `check` every `intervalMs` until it answers something other than
 * undefined or false, and answers that; after `timeoutMs`, fails naming what
 * it waited for and the last error `check` threw, if any.
 */
export async function eventually<T>(
  what: string,
  timeoutMs: number,
  check: () => Waited<T> | Promise<Waited<T>>,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: string | undefined;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = String(error);
    }
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
