import {
  defaults,
  type Env,
  integer,
  readSettings,
  type Setting,
  serverSettings,
  type Settings,
} from '@platform/runtime';

/** The ways the provider misbehaves on purpose, as PAYMENTS_CHAOS lists them. */
export const CHAOS_MODES = ['duplicate', 'reorder', 'delay'] as const;
export type ChaosMode = (typeof CHAOS_MODES)[number];

/** A Stripe test-mode secret key: the only kind this provider will take, so no live key is ever pasted into it. */
function secretKey(variable: string): Setting<string> {
  return {
    variable,
    fallback: '',
    read(name, value) {
      if (typeof value !== 'string' || !/^sk_test_[A-Za-z0-9_]{8,}$/.test(value))
        throw new Error(
          `${name} must be a Stripe test secret key, sk_test_ followed by at least 8 letters or digits (the key the provider accepts), not ${value === '' ? 'empty' : JSON.stringify(value)}.`,
        );
      return value;
    },
  };
}

/** A comma-separated subset of CHAOS_MODES; empty: the provider behaves. */
function chaosModes(variable: string): Setting<readonly ChaosMode[]> {
  return {
    variable,
    fallback: [],
    read(name, value) {
      const items: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
      const modes = items.map((item) => (typeof item === 'string' ? item.trim() : item)).filter((item) => item !== '');
      const unknown = modes.filter((mode) => !CHAOS_MODES.includes(mode as ChaosMode));
      if (unknown.length > 0)
        throw new Error(
          `${name} must list some of ${CHAOS_MODES.join(', ')}, comma-separated, not ${JSON.stringify(value)}.`,
        );
      return [...new Set(modes as ChaosMode[])];
    },
  };
}

const MINUTE_MS = 60_000;

export const PAYMENTS_SETTINGS = {
  ...serverSettings(8084),
  /** The secret key callers must present (Authorization: Bearer); required, test mode only. */
  apiKey: secretKey('PAYMENTS_API_KEY'),
  /** How long the first retry of a webhook waits; each next one waits twice as long, up to PAYMENTS_RETRY_MAX_MS. */
  retryFirstMs: integer('PAYMENTS_RETRY_FIRST_MS', 1_000, 1, 5_000),
  retryMaxMs: integer('PAYMENTS_RETRY_MAX_MS', MINUTE_MS, 1, MINUTE_MS),
  /** Longest a webhook receiver may take to answer before the attempt counts as failed. */
  deliveryTimeoutMs: integer('PAYMENTS_DELIVERY_TIMEOUT_MS', 10_000, 1, MINUTE_MS),
  chaos: chaosModes('PAYMENTS_CHAOS'),
  /** How late `delay` makes each event, and how long `reorder` gathers events before sending them newest first. */
  chaosDelayMs: integer('PAYMENTS_CHAOS_DELAY_MS', 2_000, 0, 10 * MINUTE_MS),
};

export type PaymentsConfig = Settings<typeof PAYMENTS_SETTINGS>;

/**
 * Defaults, then the configuration file (PAYMENTS_CONFIG), then the environment. It listens on loopback unless HOST
 * says otherwise: a test double has no business on other machines' networks by default.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): PaymentsConfig {
  const settings = readSettings(PAYMENTS_SETTINGS, {
    env,
    cwd,
    file: { variable: 'PAYMENTS_CONFIG', fallback: 'payments.config.json' },
  });
  if (settings.retryMaxMs < settings.retryFirstMs)
    throw new Error(
      `PAYMENTS_RETRY_MAX_MS (${settings.retryMaxMs}) must not be below PAYMENTS_RETRY_FIRST_MS (${settings.retryFirstMs}).`,
    );
  return { ...settings, host: settings.host || '127.0.0.1' };
}

/** The defaults with a key, as tests start from. */
export function testConfig(overrides: Partial<PaymentsConfig> = {}): PaymentsConfig {
  return {
    ...defaults(PAYMENTS_SETTINGS),
    host: '127.0.0.1',
    port: 0,
    apiKey: 'sk_test_offline_provider',
    ...overrides,
  };
}
