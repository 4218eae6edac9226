import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface StockServiceConfig {
  readonly port: number;
  /** sqlite:<file>, postgres://… or memory: */
  readonly databaseUrl: string;
  readonly logLevel: string;
  /** Largest number of pooled database connections (PostgreSQL). */
  readonly dbPoolSize: number;
  /** How long an Idempotency-Key's recorded response is kept. */
  readonly idempotencyTtlSeconds: number;
  /** On SIGTERM: how long readiness answers 503 before the server stops accepting connections. */
  readonly shutdownDelayMs: number;
  /** On SIGTERM: how long in-flight requests may take before their connections are cut. */
  readonly shutdownGraceMs: number;
  /** Longest a request may take to arrive whole (Node's requestTimeout). */
  readonly requestTimeoutMs: number;
  /** Longest the request headers may take to arrive (Node's headersTimeout). */
  readonly headersTimeoutMs: number;
}

export const DEFAULT_CONFIG: StockServiceConfig = {
  port: 8080,
  databaseUrl: 'sqlite:./data/stock.db',
  logLevel: 'info',
  dbPoolSize: 10,
  idempotencyTtlSeconds: 24 * 60 * 60,
  shutdownDelayMs: 0,
  shutdownGraceMs: 10_000,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
};

/** The file read when STOCK_CONFIG names none; it is optional. */
export const DEFAULT_CONFIG_FILE = 'stock-service.config.json';

type Settings = Partial<Record<keyof StockServiceConfig, unknown>>;

function readConfigFile(path: string, required: boolean): Settings {
  if (!existsSync(path)) {
    if (required) throw new Error(`Configuration file ${path} does not exist.`);
    return {};
  }
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${path} must hold a JSON object.`);
  return parsed;
}

function integer(name: string, value: unknown, min: number, max: number): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(value)}.`);
  }
  return number;
}

function text(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw new Error(`${name} must be a non-empty string.`);
  return value;
}

const DAY_MS = 86_400_000;
const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'];

/** An unknown level would silently turn every log line off, errors included. */
function level(value: unknown): string {
  if (typeof value !== 'string' || !LOG_LEVELS.includes(value)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not ${JSON.stringify(value)}.`);
  return value;
}

/** Defaults, then the configuration file, then the environment: the environment wins. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): StockServiceConfig {
  const file = readConfigFile(resolve(cwd, env.STOCK_CONFIG ?? DEFAULT_CONFIG_FILE), env.STOCK_CONFIG !== undefined);
  const pick = (variable: string, key: keyof StockServiceConfig) => env[variable] ?? file[key] ?? DEFAULT_CONFIG[key];
  return {
    port: integer('PORT', pick('PORT', 'port'), 0, 65535),
    databaseUrl: text('DATABASE_URL', pick('DATABASE_URL', 'databaseUrl')),
    logLevel: level(pick('LOG_LEVEL', 'logLevel')),
    // Two at least: migrations hold one connection for their lock while the migrator uses another.
    dbPoolSize: integer('DB_POOL_SIZE', pick('DB_POOL_SIZE', 'dbPoolSize'), 2, 1000),
    idempotencyTtlSeconds: integer('IDEMPOTENCY_TTL_SECONDS', pick('IDEMPOTENCY_TTL_SECONDS', 'idempotencyTtlSeconds'), 1, 30 * 86_400),
    shutdownDelayMs: integer('SHUTDOWN_DELAY_MS', pick('SHUTDOWN_DELAY_MS', 'shutdownDelayMs'), 0, DAY_MS),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', pick('SHUTDOWN_GRACE_MS', 'shutdownGraceMs'), 0, DAY_MS),
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', pick('REQUEST_TIMEOUT_MS', 'requestTimeoutMs'), 1, DAY_MS),
    headersTimeoutMs: integer('HEADERS_TIMEOUT_MS', pick('HEADERS_TIMEOUT_MS', 'headersTimeoutMs'), 1, DAY_MS),
  };
}
