import winston from 'winston';

/** One JSON object per line on stdout, the shape log collectors read without parsing rules. */
export function createLogger(level: string, transports: winston.transport[] = [new winston.transports.Console()]): winston.Logger {
  return winston.createLogger({
    level,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    defaultMeta: { service: 'stock-service' },
    transports,
  });
}
