import { traceFields, tracingIsOn } from './telemetry/index';
import winston, { type Logform } from 'winston';
import { BatchedLines, jsonLine } from './json-lines';
import { lineFormat } from './pretty-lines';
import type { LogFormat } from './settings';

export type LogLevel = 'error' | 'warn' | 'info' | 'http' | 'verbose' | 'debug' | 'silly';

/** One line as one object: its level, its message and its fields side by side. */
export interface LogEntry {
  readonly level: LogLevel;
  readonly message: string;
  readonly [field: string]: unknown;
}

/** Writes one entry, whole, as a line: the entry is the writer's from then on. */
type LineWriter = (entry: LogEntry) => void;

const LEVEL = Symbol.for('level');
const done = () => {};

/**
 * What winston does with an entry when its one transport is `lines` and the level is already checked: the level's
 * symbol, the default fields, the format, the transport. Without winston's two object-mode streams between them, whose
 * buffering and piping cost more than the line itself (a twentieth of a request).
 */
function straightTo(lines: BatchedLines, format: Logform.Format, service: string): LineWriter {
  return (entry) => {
    const fields = entry as unknown as Record<string | symbol, unknown>;
    fields[LEVEL] = entry.level;
    fields.service = service;
    const info = format.transform(fields as Logform.TransformableInfo, format.options);
    if (info) lines.log(info as unknown as Record<symbol, unknown>, done);
  };
}

/**
 * The logger every service writes through: one JSON object per line. A line
 * of a level the logger does not write costs one comparison: winston formats
 * an entry before its transports drop it by level, so this adapter asks first.
 * Every line reaches winston in its single-object form: `log(level, message,
 * fields)` copies the fields once more and matches the message against
 * printf tokens, on every line. A service's own logger (createLogger to
 * stdout) skips winston's streams and hands each line to its transport.
 */
export class Logger {
  private readonly threshold: number;
  private readonly hasFields: boolean;
  private readonly writeLine: LineWriter;

  constructor(
    private readonly winston: winston.Logger,
    private readonly fields: Readonly<Record<string, unknown>> = {},
    private readonly straight?: LineWriter,
  ) {
    this.threshold = winston.levels[winston.level] ?? 0;
    this.hasFields = Object.keys(fields).length > 0;
    this.writeLine = straight ?? ((entry) => winston.log(entry));
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

  /** Writes `entry`, which is the logger's from then on (winston adds its keys): the form for a line per request. */
  log(entry: LogEntry): void {
    if (!this.isEnabled(entry.level)) return;
    const ids = tracingIsOn() ? traceFields() : undefined;
    this.writeLine(this.hasFields || ids ? { ...this.fields, ...ids, ...entry } : entry);
  }

  isEnabled(level: LogLevel): boolean {
    return (this.winston.levels[level] ?? Infinity) <= this.threshold;
  }

  /** A logger that adds `fields` to every line it writes. */
  child(fields: Record<string, unknown>): Logger {
    return new Logger(this.winston, { ...this.fields, ...fields }, this.straight);
  }

  private write(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    if (!this.isEnabled(level)) return;
    // A line written inside a span names it, so that logs and traces find each other (tracing off: one comparison).
    const ids = tracingIsOn() ? traceFields() : undefined;
    this.writeLine({ ...this.fields, ...ids, ...fields, level, message });
  }
}

/**
 * A service's logger: lines on stdout, batched per turn of the event loop, in
 * the format asked for (`auto`: one short human line per event at a terminal,
 * JSON otherwise); or JSON lines to the transports given (tests capture them).
 */
export function createLogger(
  service: string,
  level: LogLevel,
  output: LogFormat | winston.transport[] = 'auto',
): Logger {
  const lines = Array.isArray(output) ? undefined : new BatchedLines();
  const format = lines ? lineFormat(output as LogFormat, process.stdout) : jsonLine();
  const logger = winston.createLogger({
    level,
    format,
    defaultMeta: { service },
    transports: lines ? [lines] : (output as winston.transport[]),
  });
  return new Logger(logger, {}, lines && straightTo(lines, format, service));
}
