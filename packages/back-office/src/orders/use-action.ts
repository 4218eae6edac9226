import { useRef, useState } from 'react';
import type { ApiProblem } from '../api';
import { asProblem } from '../use-api';

/**
 * An action a form submits once: busy while it runs, the API's refusal if it refused. The Idempotency-Key is made when
 * the form opens and kept until the action succeeds, so a submission repeated after a lost answer is done once.
 */
export function useAction() {
  const [problem, setProblem] = useState<ApiProblem>();
  const [busy, setBusy] = useState(false);
  const key = useRef(crypto.randomUUID());
  const run = async (call: (idempotencyKey: string) => Promise<void>) => {
    setProblem(undefined);
    setBusy(true);
    try {
      await call(key.current);
      key.current = crypto.randomUUID();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  return { problem, busy, run };
}
