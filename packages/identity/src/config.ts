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
  accessTokenTtlSeconds: integer('ACCESS_TOKEN_TTL_SECONDS', 600, 10, 86_400),
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
  return { ...settings, clientsFile: resolve(cwd, settings.clientsFile), keysFile: resolve(cwd, settings.keysFile) };
}

/** The defaults alone, as tests start from. */
export const DEFAULT_CONFIG: IdentityConfig = defaults(IDENTITY_SETTINGS);
