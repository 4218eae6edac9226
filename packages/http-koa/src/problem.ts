import { DomainError, ValidationError, type FieldErrors } from '@stock/domain';
import { STATUS_CODES } from 'node:http';
import { RequestError } from './request-error';

/** The one table from error codes to HTTP statuses. */
export const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  VALIDATION_FAILED: 400,
  BODY_REQUIRED: 400,
  BODY_NOT_AN_OBJECT: 400,
  MALFORMED_JSON: 400,
  PRODUCT_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
};

/** An RFC 9457 problem document. `code` and `errors` are extension members. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  errors?: FieldErrors;
}

function problem(status: number, code: string, detail: string, errors?: FieldErrors): Problem {
  const title = errors ? 'One or more validation errors occurred.' : (STATUS_CODES[status] ?? 'Error');
  return { type: 'about:blank', title, status, detail, code, ...(errors && { errors }) };
}

/** Errors thrown by the Koa stack itself (body parser, http-errors): they carry a status and say whether it is safe to show. */
interface HttpLikeError {
  status?: unknown;
  expose?: unknown;
  type?: unknown;
  message: string;
}

function fromHttpError(error: HttpLikeError): Problem | undefined {
  const status = typeof error.status === 'number' ? error.status : undefined;
  if (!status || status < 400 || status >= 500) return undefined;
  if (status === 413) return problem(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than 64 KiB.');
  if (error.type === 'entity.parse.failed' || error instanceof SyntaxError) {
    return problem(400, 'MALFORMED_JSON', 'The request body is not valid JSON (or not a JSON object).');
  }
  if (status === 415) return problem(415, 'UNSUPPORTED_MEDIA_TYPE', error.expose ? error.message : 'Unsupported media type.');
  return problem(status, 'BAD_REQUEST', error.expose ? error.message : (STATUS_CODES[status] ?? 'Bad request'));
}

/** Answers the problem for an error, or undefined for an error nobody planned for (a 500). */
export function toProblem(error: unknown): Problem | undefined {
  if (error instanceof ValidationError) return problem(400, error.code, error.message, error.errors);
  if (error instanceof DomainError || error instanceof RequestError) {
    const status = STATUS_BY_CODE[error.code];
    return status ? problem(status, error.code, error.message) : undefined;
  }
  if (error instanceof Error) return fromHttpError(error);
  return undefined;
}

export const INTERNAL_ERROR: Problem = problem(500, 'INTERNAL_ERROR', 'The server failed to handle this request. It has been logged.');
