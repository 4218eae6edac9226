import { DomainError } from '@platform/kernel';
import { type Problem, problem, problemsFor } from '@platform/http';
import { BodyTooLargeError } from './replayable-body';

/** Every code the gateway answers with of its own; the services' problems pass through as they are. */
export type GatewayErrorCode = 'INVALID_REQUEST_TARGET' | 'UPSTREAM_UNAVAILABLE' | 'UPSTREAM_TIMEOUT' | 'RATE_LIMITED';

export class GatewayError extends DomainError<GatewayErrorCode> {
  constructor(
    readonly code: GatewayErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message);
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

const STATUS: Readonly<Record<GatewayErrorCode, number>> = {
  INVALID_REQUEST_TARGET: 400,
  UPSTREAM_UNAVAILABLE: 502,
  UPSTREAM_TIMEOUT: 504,
  RATE_LIMITED: 429,
};

const known = problemsFor<GatewayErrorCode>(STATUS);

/** The gateway's problems, then the platform's (a too-large body is the platform's 413). */
export function toProblem(error: unknown): Problem | undefined {
  if (error instanceof BodyTooLargeError) return problem(413, 'PAYLOAD_TOO_LARGE', error.message);
  return known(error);
}
