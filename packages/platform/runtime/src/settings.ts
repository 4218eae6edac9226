import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * One setting: the environment variable that sets it, its default, and how a value is read (throwing a message naming
 * it).
 */
export interface Setting<T> {
  readonly variable: string;
  readonly fallback: T;
  read(variable: string, value: unknown): T;
}

export type Settings<Spec> = { readonly [K in keyof Spec]: Spec[K] extends Setting<infer T> ? T : never };

export interface SettingsSource {
  readonly env: Env;
  /** Where a relative configuration file is looked for. */
  readonly cwd: string;
  /**
   * The variable naming the configuration file (e.g. STOCK_CONFIG), and the file read when it names none (optional
   * then).
   */
  readonly file: { readonly variable: string; readonly fallback: string };
}

function readFile(path: string, required: boolean): Record<string, unknown> {
  if (!existsSync(path)) {
    if (required) throw new Error(`Configuration file ${path} does not exist.`);
    return {};
  }
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${path} must hold a JSON object.`);
  return parsed as Record<string, unknown>;
}

/**
 * Defaults, then the configuration file (keyed by the spec's names), then the
 * environment: the environment wins. A key the file has and the spec does not
 * is refused, so a misspelt setting is never silently ignored.
 */
export function readSettings<Spec extends Record<string, Setting<unknown>>>(
  spec: Spec,
  { env, cwd, file }: SettingsSource,
): Settings<Spec> {
  const named = env[file.variable];
  const path = resolve(cwd, named ?? file.fallback);
  const fromFile = readFile(path, named !== undefined);
  const unknown = Object.keys(fromFile).filter((key) => !Object.hasOwn(spec, key));
  if (unknown.length > 0) {
    throw new Error(
      `${path} has unknown setting${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')}; known: ${Object.keys(spec).join(', ')}.`,
    );
  }
  const settings: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(spec)) {
    settings[key] = setting.read(setting.variable, env[setting.variable] ?? fromFile[key] ?? setting.fallback);
  }
  return settings as Settings<Spec>;
}

/** Every setting at its default, as tests start from. */
export function defaults<Spec extends Record<string, Setting<unknown>>>(spec: Spec): Settings<Spec> {
  return Object.fromEntries(Object.entries(spec).map(([key, setting]) => [key, setting.fallback])) as Settings<Spec>;
}

/** An integer from `min` to `max`, given as a number (file) or digits (environment). */
export function integer(variable: string, fallback: number, min: number, max: number): Setting<number> {
  return {
    variable,
    fallback,
    read(name, value) {
      const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
      if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
        throw new Error(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(value)}.`);
      }
      return number;
    },
  };
}

const DURATION_UNITS_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A duration with its unit, `90s`, `30m`, `36h` or `7d` (in the environment or the file), from `min` to `max`; read
 * as milliseconds.
 */
export function duration(variable: string, fallbackMs: number, minMs: number, maxMs: number): Setting<number> {
  return {
    variable,
    fallback: fallbackMs,
    read(name, value) {
      // Unset, the default arrives as it is kept: milliseconds.
      if (value === fallbackMs) return fallbackMs;
      const match = typeof value === 'string' ? /^(\d+)([smhd])$/.exec(value) : null;
      const ms = match ? Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS] : Number.NaN;
      if (!(ms >= minMs && ms <= maxMs))
        throw new Error(
          `${name} must be a duration such as 90s, 30m, 36h or 7d, from ${minMs / 1_000}s to ${maxMs / 1_000}s, not ${JSON.stringify(value)}.`,
        );
      return ms;
    },
  };
}

/** A string that may be empty (an unset option). */
export function optionalText(variable: string, fallback = ''): Setting<string> {
  return {
    variable,
    fallback,
    read(name, value) {
      if (typeof value !== 'string') throw new Error(`${name} must be a string, not ${JSON.stringify(value)}.`);
      return value;
    },
  };
}

export function text(variable: string, fallback: string): Setting<string> {
  return {
    variable,
    fallback,
    read(name, value) {
      if (typeof value !== 'string' || value.length === 0) throw new Error(`${name} must be a non-empty string.`);
      return value;
    },
  };
}

export function oneOf<const T extends string>(variable: string, fallback: T, values: readonly T[]): Setting<T> {
  return {
    variable,
    fallback,
    read(name, value) {
      if (typeof value !== 'string' || !values.includes(value as T))
        throw new Error(`${name} must be one of ${values.join(', ')}, not ${JSON.stringify(value)}.`);
      return value as T;
    },
  };
}

const DAY_MS = 86_400_000;
/** winston's levels; an unknown level would silently turn every log line off, errors included. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;
/** JSON lines, one short human line per event, or (auto) the human form at a terminal and JSON everywhere else. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
const logFormat = oneOf('LOG_FORMAT', 'auto', LOG_FORMATS);

/** LOG_FORMAT as the environment sets it, for a process that reads no settings file (start:system). */
export function logFormatOf(env: Env): LogFormat {
  return logFormat.read(logFormat.variable, env[logFormat.variable] ?? logFormat.fallback);
}

/** The settings every HTTP service has, with its own default port. */
export function serverSettings(defaultPort: number) {
  return {
    port: integer('PORT', defaultPort, 0, 65535),
    /**
     * The address to bind (0.0.0.0: every IPv4 interface, `::` every interface); unset, the service's default (see
     * listenHost).
     */
    host: optionalText('HOST'),
    logLevel: oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    logFormat,
    shutdownDelayMs: integer('SHUTDOWN_DELAY_MS', 2_000, 0, DAY_MS),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', 10_000, 0, DAY_MS),
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', 30_000, 1, DAY_MS),
    headersTimeoutMs: integer('HEADERS_TIMEOUT_MS', 10_000, 1, DAY_MS),
  };
}

/**
 * An absolute URL of one of `protocols` (several, comma-separated, when `list`); empty only when `fallback` is empty
 * (the feature is off).
 */
export function url(
  variable: string,
  fallback: string,
  protocols: readonly string[] = ['http:', 'https:'],
): Setting<string> {
  return {
    variable,
    fallback,
    read(name, value) {
      if (value === '' && fallback === '') return '';
      const parsed = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
      if (!parsed || !protocols.includes(parsed.protocol)) {
        throw new Error(
          `${name} must be an absolute ${protocols.map((p) => p.slice(0, -1)).join(' or ')} URL, not ${JSON.stringify(value)}.`,
        );
      }
      return value as string;
    },
  };
}

/** One or more absolute http(s) URLs, comma-separated (the instances of one service); each without a trailing slash. */
export function urlList(variable: string, fallback: string): Setting<readonly string[]> {
  return {
    variable,
    fallback: fallback.split(','),
    read(name, value) {
      const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
      const urls = items.map((item) => String(item).trim()).filter(Boolean);
      const bad = urls.find((item) => !URL.canParse(item) || !/^https?:$/.test(new URL(item).protocol));
      if (urls.length === 0 || bad !== undefined)
        throw new Error(
          `${name} must be one or more absolute http URLs, comma-separated, not ${JSON.stringify(bad ?? value)}.`,
        );
      return urls.map((item) => item.replace(/\/+$/, ''));
    },
  };
}

/** The settings of a service that keeps its state in a database, with its own embedded default. */
export function databaseSettings(defaultUrl: string) {
  return {
    /** sqlite:<file>, postgres://… or memory: */
    databaseUrl: text('DATABASE_URL', defaultUrl),
    /**
     * Largest number of pooled database connections (PostgreSQL); two at least, as migrations hold one for their lock.
     */
    dbPoolSize: integer('DB_POOL_SIZE', 10, 2, 1000),
    /** Longest a statement may run (and, on SQLite, a lock may be waited for) before the request answers 503. */
    dbQueryTimeoutMs: integer('DB_QUERY_TIMEOUT_MS', 5_000, 50, 600_000),
    /** Longest a request waits for a pooled connection (or a new one) before it answers 503. */
    dbAcquireTimeoutMs: integer('DB_ACQUIRE_TIMEOUT_MS', 5_000, 50, 600_000),
    /** Create a missing database (PostgreSQL) or file (SQLite): `auto` creates only the service's default file. */
    dbCreateDatabase: oneOf('DB_CREATE_DATABASE', 'auto', ['auto', 'true', 'false']),
    /** How long an Idempotency-Key's recorded result is kept. */
    idempotencyTtlSeconds: integer('IDEMPOTENCY_TTL_SECONDS', 24 * 60 * 60, 1, 30 * 86_400),
    /**
     * How often each instance deletes expired idempotency records and inbox entries, and events published longer ago
     * than their retention.
     */
    retentionSweepMs: integer('RETENTION_SWEEP_MS', 60_000, 100, 3_600_000),
  };
}

/**
 * Whether a service may create the database it was pointed at: production must not guess, the quick start's default
 * file may be made.
 */
export function mayCreateDatabase(
  { dbCreateDatabase, databaseUrl }: { dbCreateDatabase: 'auto' | 'true' | 'false'; databaseUrl: string },
  defaultUrl: string,
): boolean {
  return dbCreateDatabase === 'true' || (dbCreateDatabase === 'auto' && databaseUrl === defaultUrl);
}

/** The connection string with its password masked, for logs and error lines. */
export function redactedUrl(databaseUrl: string): string {
  return databaseUrl.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * Events through RabbitMQ: on when AMQP_URL is set (the vhost is the URL's path); off, with one line saying so, when it
 * is not.
 */
export function messagingSettings() {
  return {
    /** amqp://user:password@host:5672/vhost; empty turns messaging off (events wait in the outbox). */
    amqpUrl: url('AMQP_URL', '', ['amqp:', 'amqps:']),
    /** How many times a message may fail before it goes to the service's dead-letter queue. */
    messagingDeliveryLimit: integer('MESSAGING_DELIVERY_LIMIT', 5, 1, 100),
    /** Messages each instance handles at once (it prefetches twice as many). */
    messagingConcurrency: integer('MESSAGING_CONCURRENCY', 4, 1, 256),
    /** How long the outbox relay sleeps when nothing is due. */
    outboxPollMs: integer('OUTBOX_POLL_MS', 250, 10, 60_000),
    /** How long published events stay in the outbox (for inspection) before the sweeper deletes them. */
    outboxRetentionSeconds: integer('OUTBOX_RETENTION_SECONDS', 24 * 60 * 60, 1, 90 * 86_400),
  };
}

/** Token checks: on when AUTH_ISSUER is set, for the service's own audience. */
export function authSettings(audience: string) {
  return {
    /**
     * The token issuer exactly as tokens carry it in `iss`; empty turns tokens off: every caller may do everything, so
     * the service listens on loopback only unless HOST is set.
     */
    authIssuer: url('AUTH_ISSUER', ''),
    /** This service's audience: tokens for another API are refused. */
    authAudience: text('AUTH_AUDIENCE', audience),
    /**
     * Where to read the issuer's discovery document when not at {AUTH_ISSUER}/.well-known/openid-configuration (an
     * internal address).
     */
    authDiscoveryUrl: url('AUTH_DISCOVERY_URL', ''),
  };
}

/** Where a service listens when its tokens are off and HOST is not set. */
export const LOOPBACK_HOST = '127.0.0.1';

/**
 * The address a service binds: HOST when it is set; otherwise every interface
 * when the service checks tokens, and loopback only when it does not, since
 * every caller may then do everything: other machines reach such a service
 * only when HOST says so.
 */
export function listenHost<S extends { readonly host: string; readonly authIssuer: string }>(settings: S): S {
  return settings.host !== '' ? settings : { ...settings, host: settings.authIssuer !== '' ? '' : LOOPBACK_HOST };
}

/** Whether `host` is an address of this machine only (127.0.0.0/8, ::1 or localhost). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * What a service's start line says when its tokens are off: who can reach it, and how to change that. Undefined with
 * tokens on.
 */
export function openAccessNote({
  host,
  authIssuer,
}: {
  readonly host: string;
  readonly authIssuer: string;
}): string | undefined {
  if (authIssuer !== '') return undefined;
  return isLoopback(host)
    ? `tokens off: listening on ${host} only (set HOST to listen elsewhere)`
    : `tokens off: every caller that reaches ${host || 'any interface'} may do everything (set AUTH_ISSUER to check tokens)`;
}

/** The URL a person on this machine opens for a service bound to `host` (empty or a wildcard: localhost). */
export function displayUrl(host: string, port: number): string {
  const name = !host || host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}
