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
  type Setting,
  type Settings,
  url,
} from '@platform/runtime';
import { paymentSettings } from '@sales/payments-stripe';

/** ISO 4217, upper case: the shop's currency. Money is held in hundredths, so a currency with two decimals. */
function currency(variable: string): Setting<string> {
  return {
    variable,
    fallback: 'EUR',
    read(name, value) {
      if (typeof value !== 'string' || !/^[A-Z]{3}$/.test(value))
        throw new Error(
          `${name} must be a currency's ISO 4217 code in upper case (EUR, USD, GBP), not ${JSON.stringify(value)}.`,
        );
      return value;
    },
  };
}

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
  /**
   * How long stock has to answer an order (hold it or refuse it) before sales rejects it itself (stock-unanswered) and
   * tells stock it is cancelled: every order is decided within this, plus a sweep, even if its event was dead-lettered.
   */
  orderAnswerTimeoutSeconds: integer('ORDER_ANSWER_TIMEOUT_SECONDS', 300, 1, 86_400),
  /** How often sales looks for orders stock has not answered in time. */
  orderAnswerSweepMs: integer('ORDER_ANSWER_SWEEP_MS', 5_000, 100, 3_600_000),
  /** Sales' own client at the issuer, for tokens to call stock with (never the caller's token). */
  stockClientId: optionalText('STOCK_CLIENT_ID'),
  stockClientSecret: optionalText('STOCK_CLIENT_SECRET'),
  /** The payment provider (Stripe's API: Stripe itself, or the offline provider at PAYMENTS_URL). */
  ...paymentSettings(),
  /** The shop's currency, what authorisations are asked in. */
  currency: currency('CURRENCY'),
  /** How often the payment worker looks for calls due to the provider (a change wakes it sooner on this instance). */
  paymentsPollMs: integer('PAYMENTS_POLL_MS', 500, 10, 60_000),
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
  if (Boolean(config.paymentsApiKey) !== Boolean(config.paymentsWebhookSecret))
    throw new Error(
      'PAYMENTS_API_KEY and PAYMENTS_WEBHOOK_SECRET go together: set both (payments on), or neither (payments off).',
    );
  return listenHost(config);
}

/** Whether the service may create the database it was pointed at: production must not guess. */
export function mayCreateDatabase(config: SalesServiceConfig): boolean {
  return mayCreate(config, DEFAULT_DATABASE_URL);
}

/** The defaults alone, as tests start from (on loopback, serving no /swagger: a test that wants it names the file). */
export const DEFAULT_CONFIG: SalesServiceConfig = listenHost(defaults(SALES_SETTINGS));
