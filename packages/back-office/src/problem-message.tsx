import type { ApiProblem } from './api';

/** A refusal shown where the action was: the problem's detail, announced to screen readers. */
export function ProblemMessage({ problem }: { problem: ApiProblem | undefined }) {
  if (!problem) return null;
  return (
    <p role="alert" className="problem">
      {problem.detail}
    </p>
  );
}
