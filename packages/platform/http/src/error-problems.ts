import { DomainError, UnavailableError, ValidationError } from '@platform/kernel';
import { type Problem, problem } from './problem';
import { RequestError, type RequestErrorCode } from './request-error';

const REQUEST_STATUS: Readonly<Record<RequestErrorCode, number>> = {
  BODY_REQUIRED: 400,
  BODY_NOT_AN_OBJECT: 400,
  MALFORMED_JSON: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  NOT_ACCEPTABLE: 406,
  NOT_READY: 503,
  MALFORMED_REQUEST: 400,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
};

/** The problem for a request the platform refuses, its status from the one table above. */
export function requestProblem(error: RequestError): Problem {
  return { ...problem(REQUEST_STATUS[error.code], error.code, error.message), ...error.extensions };
}

/**
 * The problem for every error a service knows. `statusByCode` is a record over
 * the service's union of codes, so a code added to the union without a status
 * does not compile. `extension` adds members a problem type defines (the
 * `available` of a stock refusal). Anything else is left to the shared
 * fallbacks: Koa's own 4xx errors, then a logged 500.
 */
export function problemsFor<Code extends string>(
  statusByCode: Readonly<Record<Code, number>>,
  extension: (error: DomainError<Code>) => Record<string, unknown> | undefined = () => undefined,
): (error: unknown) => Problem | undefined {
  return (error) => {
    if (error instanceof ValidationError) return problem(400, error.code, error.message, error.errors);
    if (error instanceof UnavailableError) return problem(503, error.code, error.message);
    if (error instanceof RequestError) return requestProblem(error);
    if (error instanceof DomainError && Object.hasOwn(statusByCode, (error as DomainError).code)) {
      const known = error as DomainError<Code>;
      return { ...problem(statusByCode[known.code], known.code, known.message), ...extension(known) };
    }
    return undefined;
  };
}
