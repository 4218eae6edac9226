/** The parts of a driver error that say what went wrong. */
interface DriverError {
  readonly code?: unknown;
  readonly name?: unknown;
  readonly message?: unknown;
}

/** Connection-level failures: refused, reset, timed out, the server going away. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs that mean "not now" rather than "not this": the
 * connection failed (08…), the server is shutting down or starting (57P0…),
 * a statement ran past statement_timeout (57014), no connection slots (53300),
 * a full disk (53100), a read-only server (25006).
 */
const POSTGRES_UNAVAILABLE = /^(08\d{3}|57P0[1-4]|57014|53300|53100|25006)$/;

/** SQLite result codes that mean the file cannot take writes now: read-only, full, I/O failure, locked too long. */
const SQLITE_UNAVAILABLE = /^SQLITE_(READONLY|FULL|IOERR|BUSY|CANTOPEN|LOCKED|PROTOCOL)/;

const DRIVER_MESSAGES = [
  /Connection terminated/i, // pg, when the server closes the socket
  /Query read timeout/i, // pg's query_timeout
  /timeout exceeded when trying to connect/i, // pg's connectionTimeoutMillis
  /Timeout acquiring a connection/i, // the SQLite connection, held by a transaction past the acquire timeout
  /Client has encountered a connection error/i,
];

/**
 * Whether an error means the database cannot be used right now (a request
 * should get a 503 and may be retried), as opposed to a statement that is
 * wrong or a constraint that refused it.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause && depth < 5; depth++) {
    const { code, name, message } = cause as DriverError;
    if (
      typeof code === 'string' &&
      (NETWORK_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code) || SQLITE_UNAVAILABLE.test(code))
    )
      return true;
    // MikroORM's own conversion, on the statements it runs (migrations, the schema generator).
    if (name === 'ConnectionException') return true;
    if (typeof message === 'string' && DRIVER_MESSAGES.some((pattern) => pattern.test(message))) return true;
    cause = (cause as { cause?: unknown; previous?: unknown }).previous ?? (cause as { cause?: unknown }).cause;
  }
  return false;
}
