import { STATUS_CODES } from 'node:http';

/** Field or parameter name → why it is invalid. */
export type ProblemErrors = Readonly<Record<string, readonly string[]>>;

/** An RFC 9457 problem document. `code` (stable, for programs) and `errors` are extension members. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: string;
  readonly instance?: string;
  readonly errors?: ProblemErrors;
  /** Further extension members a problem type defines (e.g. the stock `available`). */
  readonly [extension: string]: unknown;
}

export function problem(status: number, code: string, detail: string, errors?: ProblemErrors): Problem {
  const title = errors ? 'One or more validation errors occurred.' : (STATUS_CODES[status] ?? 'Error');
  return { type: 'about:blank', title, status, detail, code, ...(errors && { errors }) };
}

/** Errors thrown by Koa's own stack (http-errors) carry a 4xx status and say whether their message is fit to show. */
export function problemFromHttpError(error: unknown): Problem | undefined {
  const { status, expose, message } = (error ?? {}) as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const detail = expose === true && typeof message === 'string' ? message : (STATUS_CODES[status] ?? 'Bad request');
  return problem(status, 'BAD_REQUEST', detail);
}

export const INTERNAL_ERROR: Problem = problem(
  500,
  'INTERNAL_ERROR',
  'The server failed to handle this request. It has been logged.',
);
