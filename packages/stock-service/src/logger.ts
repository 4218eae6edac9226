import { currentRequestId } from '@stock/http-koa';
import winston from 'winston';

/** Every line written while a request is handled carries its id. */
const requestId = winston.format((info) => {
  const id = currentRequestId();
  if (id !== undefined && info.requestId === undefined) info.requestId = id;
  return info;
});

/** One JSON object per line on stdout, the shape log collectors read without parsing rules. */
export function createLogger(level: string, transports: winston.transport[] = [new winston.transports.Console()]): winston.Logger {
  return winston.createLogger({
    level,
    format: winston.format.combine(requestId(), winston.format.timestamp(), winston.format.json()),
    defaultMeta: { service: 'stock-service' },
    transports,
  });
}
