import winston from 'winston';

/** One JSON object per line on stdout, the shape log collectors read without parsing rules. */
export function createLogger(level: string, transports: winston.transport[] = [new winston.transports.Console()]): winston.Logger {
  const logger = winston.createLogger({
    level,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    defaultMeta: { service: 'stock-service' },
    transports,
  });
  // winston formats every entry (timestamp, JSON) before its transports drop it by level; a disabled
  // level should cost nothing, so it returns before any of that. Changing logger.level still works.
  for (const name of Object.keys(logger.levels) as (keyof winston.Logger & string)[]) {
    const write = logger[name] as (...args: unknown[]) => winston.Logger;
    (logger as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => (logger.isLevelEnabled(name) ? write.apply(logger, args) : logger);
  }
  return logger;
}
