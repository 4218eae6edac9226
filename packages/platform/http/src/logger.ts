/** What the platform logs through; a winston logger fits it as it is. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): unknown;
  warn(message: string, fields?: Record<string, unknown>): unknown;
  error(message: string, fields?: Record<string, unknown>): unknown;
}

/** One line as one object, winston's single-object form: its level, its message and its fields side by side. */
export interface LogEntry {
  readonly level: 'error' | 'warn' | 'info' | 'debug';
  readonly message: string;
  readonly [field: string]: unknown;
}

/** What an HTTP app logs through: a line per request is handed over whole, without a copy. */
export interface HttpLogger extends Logger {
  log(entry: LogEntry): unknown;
  /** Whether a line of `level` is written (fixed once the logger is made); without it, every line is built. */
  isEnabled?(level: LogEntry['level']): boolean;
}
