import { problem, problemMiddleware } from '@platform/http';
import type { Context, Middleware } from 'koa';
import { ProblemError } from './problem-error';

/**
 * The head of the chain: every error leaves as application/problem+json.
 * Anything unplanned is a 500 whose body says nothing of the cause; the cause goes to `logUnexpected`.
 */
export function errorMiddleware(logUnexpected: (error: unknown, ctx: Context) => void): Middleware {
  return problemMiddleware({
    toProblem: (error) =>
      error instanceof ProblemError ? problem(error.status, error.code, error.message, error.errors) : undefined,
    logUnexpected,
  });
}
