import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface StockServiceConfig {
  readonly port: number;
  /** sqlite:<file>, postgres://… or memory: */
  readonly databaseUrl: string;
  readonly logLevel: string;
}

export const DEFAULT_CONFIG: StockServiceConfig = {
  port: 8080,
  databaseUrl: 'sqlite:./data/stock.db',
  logLevel: 'info',
};

/** The file read when STOCK_CONFIG names none; it is optional. */
export const DEFAULT_CONFIG_FILE = 'stock-service.config.json';

function readConfigFile(path: string, required: boolean): Partial<Record<keyof StockServiceConfig, unknown>> {
  if (!existsSync(path)) {
    if (required) throw new Error(`Configuration file ${path} does not exist.`);
    return {};
  }
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${path} must hold a JSON object.`);
  return parsed;
}

function port(value: unknown): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0 || number > 65535) {
    throw new Error(`PORT must be an integer from 0 to 65535, not ${JSON.stringify(value)}.`);
  }
  return number;
}

function text(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw new Error(`${name} must be a non-empty string.`);
  return value;
}

/** Defaults, then the configuration file, then the environment: the environment wins. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): StockServiceConfig {
  const file = readConfigFile(resolve(cwd, env.STOCK_CONFIG ?? DEFAULT_CONFIG_FILE), env.STOCK_CONFIG !== undefined);
  return {
    port: port(env.PORT ?? file.port ?? DEFAULT_CONFIG.port),
    databaseUrl: text('DATABASE_URL', env.DATABASE_URL ?? file.databaseUrl ?? DEFAULT_CONFIG.databaseUrl),
    logLevel: text('LOG_LEVEL', env.LOG_LEVEL ?? file.logLevel ?? DEFAULT_CONFIG.logLevel),
  };
}
