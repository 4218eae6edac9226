/** An error the client caused, with the status and stable `code` its problem document carries. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Each offending field or parameter, and why. */
    readonly errors?: Readonly<Record<string, readonly string[]>>,
  ) {
    super(message);
    this.name = 'ProblemError';
  }
}
