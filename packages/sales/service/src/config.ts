import { Apis } from '@commerce/contracts';
import {
  authSettings,
  databaseSettings,
  defaults,
  type Env,
  integer,
  listenHost,
  mayCreateDatabase as mayCreate,
  messagingSettings,
  optionalText,
  readSettings,
  serverSettings,
  type Settings,
  url,
} from '@platform/runtime';

/** The embedded database of the quick start: the one the service creates by itself when it is missing. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/sales.db';

export const SALES_SETTINGS = {
  ...serverSettings(8082),
  ...databaseSettings(DEFAULT_DATABASE_URL),
  ...authSettings(Apis.sales.audience),
  ...messagingSettings(),
  /** The stock API: the service itself, or the gateway in front of it. */
  stockUrl: url('STOCK_URL', 'http://127.0.0.1:8080'),
  /** Longest one call to stock may take; reads are tried three times, and five failures in a row open the breaker. */
  stockTimeoutMs: integer('STOCK_TIMEOUT_MS', 2_000, 50, 60_000),
  /** Sales' own client at the issuer, for tokens to call stock with (never the caller's token). */
  stockClientId: optionalText('STOCK_CLIENT_ID'),
  stockClientSecret: optionalText('STOCK_CLIENT_SECRET'),
  /**
   * The OpenAPI description served at /swagger; none is served without one. Its default is the entry's to give
   * (loadConfig's `files`).
   */
  openApiFile: optionalText('OPENAPI_FILE'),
};

export type SalesServiceConfig = Settings<typeof SALES_SETTINGS>;

/** The file read when SALES_CONFIG names none; it is optional. */
export const DEFAULT_CONFIG_FILE = 'sales-service.config.json';

/**
 * Files the service serves, as the entry that knows where they are hands them in: they become the settings' defaults.
 */
export interface SalesServiceFiles {
  readonly openApiFile?: string;
}

/**
 * Defaults (with the entry's `files`), then the configuration file, then the
 * environment: the environment wins. Settings that only make sense together
 * are checked together. Without HOST, the service listens on loopback only
 * while its tokens are off (listenHost). No package but the entry knows where
 * the workspace keeps its files, so nothing here climbs to the repository root.
 */
export function loadConfig(
  env: Env = process.env,
  cwd: string = process.cwd(),
  files: SalesServiceFiles = {},
): SalesServiceConfig {
  const spec = { ...SALES_SETTINGS, openApiFile: optionalText('OPENAPI_FILE', files.openApiFile) };
  const config = readSettings(spec, { env, cwd, file: { variable: 'SALES_CONFIG', fallback: DEFAULT_CONFIG_FILE } });
  if (Boolean(config.stockClientId) !== Boolean(config.stockClientSecret))
    throw new Error('STOCK_CLIENT_ID and STOCK_CLIENT_SECRET go together: set both, or neither.');
  if (config.stockClientId && !config.authIssuer)
    throw new Error('STOCK_CLIENT_ID needs AUTH_ISSUER: the issuer it gets tokens from.');
  return listenHost(config);
}

/** Whether the service may create the database it was pointed at: production must not guess. */
export function mayCreateDatabase(config: SalesServiceConfig): boolean {
  return mayCreate(config, DEFAULT_DATABASE_URL);
}

/** The defaults alone, as tests start from (on loopback, serving no /swagger: a test that wants it names the file). */
export const DEFAULT_CONFIG: SalesServiceConfig = listenHost(defaults(SALES_SETTINGS));
