import winston from 'winston';
import { BatchedLines, jsonLine } from './json-lines';

export type LogLevel = 'error' | 'warn' | 'info' | 'http' | 'verbose' | 'debug' | 'silly';

/**
 * The logger every service writes through: one JSON object per line. A line
 * of a level the logger does not write costs one comparison: winston formats
 * an entry before its transports drop it by level, so this adapter asks first.
 */
export class Logger {
  private readonly threshold: number;

  constructor(
    private readonly winston: winston.Logger,
    private readonly fields: Readonly<Record<string, unknown>> = {},
  ) {
    this.threshold = winston.levels[winston.level] ?? 0;
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.write('error', message, fields);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.write('warn', message, fields);
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.write('info', message, fields);
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.write('debug', message, fields);
  }

  isEnabled(level: LogLevel): boolean {
    return (this.winston.levels[level] ?? Infinity) <= this.threshold;
  }

  /** A logger that adds `fields` to every line it writes. */
  child(fields: Record<string, unknown>): Logger {
    return new Logger(this.winston, { ...this.fields, ...fields });
  }

  private write(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    if (!this.isEnabled(level)) return;
    this.winston.log(level, message, { ...this.fields, ...fields });
  }
}

/** A service's logger: JSON lines on stdout, batched per turn of the event loop, or to the transports given (tests capture them). */
export function createLogger(service: string, level: LogLevel, transports: winston.transport[] = [new BatchedLines()]): Logger {
  const logger = winston.createLogger({
    level,
    format: jsonLine(),
    defaultMeta: { service },
    transports,
  });
  return new Logger(logger);
}
