/**
 * A bearer token this service does not accept. The message is what the
 * client is told in the problem and in `error_description`: it never echoes
 * the token, and holds no characters RFC 6750 forbids there (no `"` or `\`).
 */
export class InvalidTokenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidTokenError';
  }
}
