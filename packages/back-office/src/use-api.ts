import { useCallback, useEffect, useState } from 'react';
import { ApiProblem } from './api';

export type Loaded<T> =
  | { readonly state: 'loading' }
  | { readonly state: 'failed'; readonly problem: ApiProblem }
  | { readonly state: 'loaded'; readonly value: T };

export const asProblem = (error: unknown): ApiProblem =>
  error instanceof ApiProblem
    ? error
    : new ApiProblem(0, 'Error', error instanceof Error ? error.message : String(error));

/** Loads what `load` answers whenever `key` changes, and again on `reload()`. */
export function useLoaded<T>(load: () => Promise<T>, key: string): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (value) => current && setLoaded({ state: 'loaded', value }),
      (error: unknown) => current && setLoaded({ state: 'failed', problem: asProblem(error) }),
    );
    return () => {
      current = false;
    };
    // `load` is a new function on every render: `key` says what it loads.
  }, [key, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return [loaded, reload];
}
