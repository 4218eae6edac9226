import { defaults, type Env, integer, readSettings, serverSettings, type Settings, text } from '@platform/runtime';
import { fileURLToPath } from 'node:url';

/** Where this workspace keeps the stock service's contract; OPENAPI_FILE points elsewhere. */
const WORKSPACE_OPENAPI = fileURLToPath(new URL('../../../../docs/openapi.yaml', import.meta.url));

export const STOCK_SETTINGS = {
  ...serverSettings(8080),
  /** sqlite:<file>, postgres://… or memory: */
  databaseUrl: text('DATABASE_URL', 'sqlite:./data/stock.db'),
  /** Largest number of pooled database connections (PostgreSQL); two at least, as migrations hold one for their lock. */
  dbPoolSize: integer('DB_POOL_SIZE', 10, 2, 1000),
  /** How long an Idempotency-Key's recorded result is kept. */
  idempotencyTtlSeconds: integer('IDEMPOTENCY_TTL_SECONDS', 24 * 60 * 60, 1, 30 * 86_400),
  /** The OpenAPI description served at /swagger. */
  openApiFile: text('OPENAPI_FILE', WORKSPACE_OPENAPI),
};

export type StockServiceConfig = Settings<typeof STOCK_SETTINGS>;

/** The file read when STOCK_CONFIG names none; it is optional. */
export const DEFAULT_CONFIG_FILE = 'stock-service.config.json';

/** Defaults, then the configuration file, then the environment: the environment wins. */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): StockServiceConfig {
  return readSettings(STOCK_SETTINGS, { env, cwd, file: { variable: 'STOCK_CONFIG', fallback: DEFAULT_CONFIG_FILE } });
}

/** The defaults alone, as tests start from. */
export const DEFAULT_CONFIG: StockServiceConfig = defaults(STOCK_SETTINGS);
