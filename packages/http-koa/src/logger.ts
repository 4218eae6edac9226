/** What the HTTP adapter logs through; winston's logger fits it as it is. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): unknown;
  warn(message: string, fields?: Record<string, unknown>): unknown;
  error(message: string, fields?: Record<string, unknown>): unknown;
}
