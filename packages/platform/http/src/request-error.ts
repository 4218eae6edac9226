/** A request the edge refuses before any use case runs. Its code is in the platform's status table. */
export class RequestError extends Error {
  constructor(
    readonly code: RequestErrorCode,
    message: string,
    /** Extension members of the problem (readiness names its checks). */
    readonly extensions?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

export type RequestErrorCode =
  | 'BODY_REQUIRED'
  | 'BODY_NOT_AN_OBJECT'
  | 'MALFORMED_JSON'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  /** The Accept header names no representation the route can answer in. */
  | 'NOT_ACCEPTABLE'
  | 'NOT_READY'
  // What Node's HTTP parser refuses before any middleware runs (see clientErrorHandler).
  | 'MALFORMED_REQUEST'
  | 'REQUEST_TIMEOUT'
  | 'HEADERS_TOO_LARGE';
