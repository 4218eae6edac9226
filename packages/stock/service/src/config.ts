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
  oneOf,
  optionalText,
  readSettings,
  serverSettings,
  type Settings,
} from '@platform/runtime';
import { webhookSettings } from './webhook-settings';
import { ALLOCATION_STRATEGIES, INT32_MAX } from '@stock/domain';

/** The embedded database of the quick start: the one the service creates by itself when it is missing. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/stock.db';

export const STOCK_SETTINGS = {
  ...serverSettings(8080),
  ...databaseSettings(DEFAULT_DATABASE_URL),
  ...messagingSettings(),
  ...authSettings(Apis.stock.audience),
  /** Signed webhooks from the outbox (WEBHOOKS=on), with their key and limits: see webhook-settings.ts. */
  ...webhookSettings(),
  /** How long a reservation holds its stock when the request does not say. */
  reservationTtlSeconds: integer('RESERVATION_TTL_SECONDS', 900, 1, 7 * 86_400),
  /** How often each instance looks for held reservations past their time (any number of instances may). */
  reservationSweepMs: integer('RESERVATION_SWEEP_MS', 5_000, 100, 3_600_000),
  /**
   * How a reservation line that names no location is spread over the locations: `priority` fills from the first
   * location in priority order, `most-available` from the one with most available first.
   */
  reservationAllocation: oneOf('RESERVATION_ALLOCATION', 'priority', ALLOCATION_STRATEGIES),
  /** How far above its threshold a low product must come back before stock.level.restored: it does not flap. */
  lowStockHysteresis: integer('LOW_STOCK_HYSTERESIS', 1, 0, INT32_MAX),
  /**
   * The OpenAPI description served at /swagger; none is served without one. Its default is the entry's to give
   * (loadConfig's `files`).
   */
  openApiFile: optionalText('OPENAPI_FILE'),
};

export type StockServiceConfig = Settings<typeof STOCK_SETTINGS>;

/** The file read when STOCK_CONFIG names none; it is optional. */
export const DEFAULT_CONFIG_FILE = 'stock-service.config.json';

/**
 * Files the service serves, as the entry that knows where they are hands them in: they become the settings' defaults.
 */
export interface StockServiceFiles {
  readonly openApiFile?: string;
}

/**
 * Defaults (with the entry's `files`), then the configuration file, then the
 * environment: the environment wins. Without HOST, the service listens on
 * loopback only while its tokens are off (listenHost). No package but the entry
 * knows where the workspace keeps its files, so nothing here climbs to the
 * repository root.
 */
export function loadConfig(
  env: Env = process.env,
  cwd: string = process.cwd(),
  files: StockServiceFiles = {},
): StockServiceConfig {
  const spec = { ...STOCK_SETTINGS, openApiFile: optionalText('OPENAPI_FILE', files.openApiFile) };
  return listenHost(
    readSettings(spec, { env, cwd, file: { variable: 'STOCK_CONFIG', fallback: DEFAULT_CONFIG_FILE } }),
  );
}

/** Whether the service may create the database it was pointed at: production must not guess. */
export function mayCreateDatabase(config: StockServiceConfig): boolean {
  return mayCreate(config, DEFAULT_DATABASE_URL);
}

/** The defaults alone, as tests start from (on loopback, serving no /swagger: a test that wants it names the file). */
export const DEFAULT_CONFIG: StockServiceConfig = listenHost(defaults(STOCK_SETTINGS));
