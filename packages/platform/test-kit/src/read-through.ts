/**
 * An object whose `keys` read through to whatever `current()` answers at the time: a test store that a reset replaces
 * keeps answering with the fresh one's parts.
 */
export function readThrough<T extends object, K extends keyof T>(current: () => T, keys: readonly K[]): Pick<T, K> {
  const view = {} as Pick<T, K>;
  for (const key of keys) Object.defineProperty(view, key, { get: () => current()[key], enumerable: true });
  return view;
}
