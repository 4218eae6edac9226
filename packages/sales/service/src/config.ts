import { authSettings, databaseSettings, defaults, type Env, integer, mayCreateDatabase as mayCreate, messagingSettings, optionalText, readSettings, serverSettings, type Settings, text, url } from '@platform/runtime';
import { fileURLToPath } from 'node:url';

/** Where this workspace keeps the sales service's contract; OPENAPI_FILE points elsewhere. */
const WORKSPACE_OPENAPI = fileURLToPath(new URL('../../../../docs/sales.openapi.yaml', import.meta.url));

/** The embedded database of the quick start: the one the service creates by itself when it is missing. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/sales.db';

export const SALES_SETTINGS = {
  ...serverSettings(8082),
  ...databaseSettings(DEFAULT_DATABASE_URL),
  ...authSettings('urn:commerce:sales'),
  ...messagingSettings(),
  /** The stock API: the service itself, or the gateway in front of it. */
  stockUrl: url('STOCK_URL', 'http://127.0.0.1:8080'),
  /** Longest one call to stock may take; reads are tried three times, and five failures in a row open the breaker. */
  stockTimeoutMs: integer('STOCK_TIMEOUT_MS', 2_000, 50, 60_000),
  /** Sales' own client at the issuer, for tokens to call stock with (never the caller's token). */
  stockClientId: optionalText('STOCK_CLIENT_ID'),
  stockClientSecret: optionalText('STOCK_CLIENT_SECRET'),
  /** The OpenAPI description served at /swagger. */
  openApiFile: text('OPENAPI_FILE', WORKSPACE_OPENAPI),
};

export type SalesServiceConfig = Settings<typeof SALES_SETTINGS>;

/** The file read when SALES_CONFIG names none; it is optional. */
export const DEFAULT_CONFIG_FILE = 'sales-service.config.json';

/** Defaults, then the configuration file, then the environment: the environment wins. Settings that only make sense together are checked together. */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): SalesServiceConfig {
  const config = readSettings(SALES_SETTINGS, { env, cwd, file: { variable: 'SALES_CONFIG', fallback: DEFAULT_CONFIG_FILE } });
  if (Boolean(config.stockClientId) !== Boolean(config.stockClientSecret)) throw new Error('STOCK_CLIENT_ID and STOCK_CLIENT_SECRET go together: set both, or neither.');
  if (config.stockClientId && !config.authIssuer) throw new Error('STOCK_CLIENT_ID needs AUTH_ISSUER: the issuer it gets tokens from.');
  return config;
}

/** Whether the service may create the database it was pointed at: production must not guess. */
export function mayCreateDatabase(config: SalesServiceConfig): boolean {
  return mayCreate(config, DEFAULT_DATABASE_URL);
}

/** The defaults alone, as tests start from. */
export const DEFAULT_CONFIG: SalesServiceConfig = defaults(SALES_SETTINGS);
