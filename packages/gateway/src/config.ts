import {
  defaults,
  type Env,
  integer,
  listenHost,
  optionalText,
  readSettings,
  type Setting,
  serverSettings,
  type Settings,
  text,
  url,
  urlList,
} from '@platform/runtime';

/** An http(s) origin, scheme, host and port only (nothing after them but a slash), or empty. */
function origin(variable: string): Setting<string> {
  return {
    variable,
    fallback: '',
    read(name, value) {
      if (value === '') return '';
      const parsed = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
      if (
        !parsed ||
        !/^https?:$/.test(parsed.protocol) ||
        parsed.username ||
        parsed.password ||
        parsed.pathname !== '/' ||
        parsed.search ||
        parsed.hash ||
        /[?#]$/.test(value as string)
      ) {
        throw new Error(
          `${name} must be an http or https origin such as https://api.example.com (no path, query or credentials), not ${JSON.stringify(value)}.`,
        );
      }
      return parsed.origin;
    },
  };
}

export const GATEWAY_SETTINGS = {
  ...serverSettings(8000),
  /**
   * The origin clients reach the gateway at. The services are told this host and scheme (Forwarded,
   * X-Forwarded-Host/Proto), never the client's Host; empty: the address the gateway listens on.
   */
  publicUrl: origin('PUBLIC_URL'),
  /**
   * The operators' listener: /metrics, and readiness naming each upstream instance. 0 picks a free port (logged at
   * start).
   */
  metricsPort: integer('METRICS_PORT', 9464, 0, 65535),
  /** Where the operators' listener binds: loopback unless a scraper elsewhere must reach it. */
  metricsHost: text('METRICS_HOST', '127.0.0.1'),
  /** The stock service's instances, comma-separated: requests are balanced over those that are ready. */
  stockUrl: urlList('STOCK_URL', 'http://127.0.0.1:8080'),
  salesUrl: urlList('SALES_URL', 'http://127.0.0.1:8082'),
  identityUrl: urlList('IDENTITY_URL', 'http://127.0.0.1:8083'),
  /** Longest an upstream may take to answer with its headers (then 504), and between two chunks of its body. */
  upstreamTimeoutMs: integer('UPSTREAM_TIMEOUT_MS', 10_000, 100, 600_000),
  /**
   * How often each upstream instance's readiness is asked; one that answers 503 gets no traffic until it answers 200.
   */
  upstreamCheckMs: integer('UPSTREAM_CHECK_MS', 1_000, 50, 60_000),
  /** Largest request body forwarded (413 beyond). */
  bodyLimitBytes: integer('GATEWAY_BODY_LIMIT_BYTES', 1_048_576, 1, 1_073_741_824),
  /**
   * The token issuer as tokens carry it in `iss`; empty lets every request through to the services (which may check
   * tokens themselves), so the gateway listens on loopback only unless HOST is set.
   */
  authIssuer: url('AUTH_ISSUER', ''),
  /** Where to read the issuer's metadata when not at {AUTH_ISSUER}/.well-known/openid-configuration. */
  authDiscoveryUrl: url('AUTH_DISCOVERY_URL', ''),
  /**
   * Requests per client per minute (the token's subject, else the address: requests without a good token count too); 0
   * turns the limit off.
   */
  rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', 6_000, 0, 100_000_000),
  /** Redis, shared by every gateway instance for the rate limit; empty keeps the counts in this process. */
  redisUrl: url('REDIS_URL', '', ['redis:', 'rediss:']),
  /**
   * The services' OpenAPI descriptions, shown together at /swagger (none: no /swagger). Their defaults are the entry's
   * to give.
   */
  stockOpenApiFile: optionalText('STOCK_OPENAPI_FILE'),
  salesOpenApiFile: optionalText('SALES_OPENAPI_FILE'),
  /** The back office's built files (index.html and assets/), served at /admin/; empty: no /admin/. */
  backOfficeDir: optionalText('BACK_OFFICE_DIR'),
};

/** Where this workspace keeps the descriptions: only the entry knows (main.ts hands them over). */
export interface GatewayFiles {
  readonly stockOpenApiFile?: string;
  readonly salesOpenApiFile?: string;
  readonly backOfficeDir?: string;
}

export type GatewayConfig = Settings<typeof GATEWAY_SETTINGS>;

/**
 * Defaults (with the entry's `files`), then the configuration file (GATEWAY_CONFIG), then the environment: the
 * environment wins.
 * Without HOST, the gateway listens on loopback only while it checks no token at its edge (listenHost).
 */
export function loadConfig(
  env: Env = process.env,
  cwd: string = process.cwd(),
  files: GatewayFiles = {},
): GatewayConfig {
  const spec = {
    ...GATEWAY_SETTINGS,
    stockOpenApiFile: optionalText('STOCK_OPENAPI_FILE', files.stockOpenApiFile),
    salesOpenApiFile: optionalText('SALES_OPENAPI_FILE', files.salesOpenApiFile),
    backOfficeDir: optionalText('BACK_OFFICE_DIR', files.backOfficeDir),
  };
  return listenHost(
    readSettings(spec, { env, cwd, file: { variable: 'GATEWAY_CONFIG', fallback: 'gateway.config.json' } }),
  );
}

/** The defaults alone, as tests start from (on loopback, serving no /swagger: a test that wants it names the files). */
export const DEFAULT_CONFIG: GatewayConfig = listenHost(defaults(GATEWAY_SETTINGS));
