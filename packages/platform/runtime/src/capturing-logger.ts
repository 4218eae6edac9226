import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, type Logger } from './logger';

/** A logger whose lines land, parsed, in `logs`, for assertions on what a service logged. */
export function capturingLogger(service: string, logs: Record<string, unknown>[], level = 'info'): Logger {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return createLogger(service, level as never, [new winston.transports.Stream({ stream: sink })]);
}
