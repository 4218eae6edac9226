import {
  defaults,
  type Env,
  integer,
  oneOf,
  readSettings,
  type Setting,
  serverSettings,
  type Settings,
  text,
  url,
} from '@platform/runtime';
import { resolve } from 'node:path';

/** The public issuer URL, or empty for http://<host>:<port> of this instance. */
function issuerUrl(variable: string): Setting<string> {
  return {
    variable,
    fallback: '',
    read(name, value) {
      if (value === '') return '';
      const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
      const problem = !url
        ? 'an absolute URL'
        : !/^https?:$/.test(url.protocol)
          ? 'an http or https URL'
          : url.search ||
              url.hash ||
              url.username ||
              url.password ||
              value !== `${url.origin}${url.pathname.replace(/\/$/, '')}`
            ? 'a URL as written in canonical form (lower-case host, no default port) with no query, fragment, credentials or trailing slash: tokens carry it verbatim in iss'
            : undefined;
      if (problem) throw new Error(`${name} must be ${problem}, not ${JSON.stringify(value)}.`);
      return value as string;
    },
  };
}

export const IDENTITY_SETTINGS = {
  ...serverSettings(8083),
  /**
   * The public issuer URL (tokens' `iss`); its path is where the service serves, e.g. https://api.example.com/identity
   * behind the gateway.
   */
  issuer: issuerUrl('ISSUER'),
  /** JSON: [{ "clientId", "clientSecret", "scopes": [...] }] */
  clientsFile: text('IDENTITY_CLIENTS_FILE', 'data/identity-clients.json'),
  /** The signing keys, a JWKS with private parts: created (mode 0600) when missing. */
  keysFile: text('IDENTITY_KEYS_FILE', 'data/identity-keys.json'),
  /**
   * JSON: [{ "username", "passwordHash", "roles": [...] }], written by pnpm identity:add-user. Without the file no one
   * signs in: the issuer serves clients alone, as it did before it had people.
   */
  usersFile: text('IDENTITY_USERS_FILE', 'data/identity-users.json'),
  /** Where sign-in sessions, codes, refresh tokens and failed sign-ins are kept, shared by every instance. */
  redisUrl: url('REDIS_URL', '', ['redis:', 'rediss:']),
  accessTokenTtlSeconds: integer('ACCESS_TOKEN_TTL_SECONDS', 600, 10, 86_400),
  /** How long a staff sign-in lasts: its session, and its refresh tokens however often they rotate. */
  staffSessionTtlSeconds: integer('STAFF_SESSION_TTL_SECONDS', 28_800, 60, 604_800),
  /** Consecutive failed sign-ins for one username, or from one address, that lock it. */
  signInMaxFailures: integer('SIGN_IN_MAX_FAILURES', 10, 1, 1_000),
  /** How long a locked username or address stays refused. */
  signInLockSeconds: integer('SIGN_IN_LOCK_SECONDS', 900, 1, 86_400),
  /** Each failure before the lock makes the next answer this much slower (up to ten times it). */
  signInFailureDelayMs: integer('SIGN_IN_FAILURE_DELAY_MS', 250, 0, 5_000),
  /** Build the endpoints' URLs from X-Forwarded-Proto/Host: only behind a proxy that sets them. */
  trustProxy: oneOf('TRUST_PROXY', 'false', ['true', 'false']),
};

export type IdentityConfig = Settings<typeof IDENTITY_SETTINGS>;

/**
 * Defaults, then the configuration file (IDENTITY_CONFIG), then the environment; the files' paths resolved against
 * `cwd`.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): IdentityConfig {
  const settings = readSettings(IDENTITY_SETTINGS, {
    env,
    cwd,
    file: { variable: 'IDENTITY_CONFIG', fallback: 'identity.config.json' },
  });
  return {
    ...settings,
    clientsFile: resolve(cwd, settings.clientsFile),
    keysFile: resolve(cwd, settings.keysFile),
    usersFile: resolve(cwd, settings.usersFile),
  };
}

/** The defaults alone, as tests start from. */
export const DEFAULT_CONFIG: IdentityConfig = defaults(IDENTITY_SETTINGS);
