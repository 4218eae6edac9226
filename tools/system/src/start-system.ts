/**
 * pnpm start:system: identity, stock, sales, the offline payment provider and
 * the gateway, each a process of its own, with tokens on and events through
 * RabbitMQ; sales pays through the provider, whose webhooks reach it through
 * the gateway. Their lines go to
 * stdout: at a terminal one short coloured line per event, else (or with
 * LOG_FORMAT=json) their JSON behind the service's name. Ctrl-C (or SIGTERM)
 * stops them one at a time, gracefully, the gateway first: each runs in a
 * process group of its own, so a terminal's Ctrl-C reaches start:system alone.
 * On the first run it writes a development clients file with random secrets;
 * a file from an older run gets the clients it lacks. The back office the gateway serves at /admin/ is built first when
 * its build is missing or older than its sources. With OTEL_EXPORTER_OTLP_ENDPOINT set, every service sends
 * its traces there (the other OTEL_* variables pass too), each under its own service name.
 */
import { Apis } from '@commerce/contracts';
import { Broker, redactedAmqpUrl } from '@platform/messaging';
import { chosenFormat, logFormatOf, SERVICE_COLOURS, showsColours } from '@platform/runtime';
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildBackOfficeIfStale } from './back-office-build';
import { DEVELOPMENT_CLIENTS, developmentClientsFile } from './development-clients';
import { backOfficeLine, createFirstAdmin } from './first-admin';
import { servicesEnv } from './services-env';
import { type LinesStyle, shownLine } from './service-lines';
import { killAll, stopInOrder } from './stop-in-order';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/**
 * Built (dist/system.js, pnpm start:system), it starts the built services, dist/<name>.js; from source (pnpm
 * dev:system, the tests), their sources under tsx.
 */
const BUILT = process.argv[1] !== undefined && resolve(process.argv[1]).startsWith(join(ROOT, 'dist') + sep);
const mainArgs = (name: string, source: string) =>
  BUILT
    ? ['--enable-source-maps', join(ROOT, 'dist', `${name}.js`)]
    : ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, join(ROOT, source)];

const env = process.env;
const port = (variable: string, fallback: number) => Number(env[variable] ?? fallback);
const PORTS = {
  gateway: port('GATEWAY_PORT', 8000),
  stock: port('STOCK_PORT', 8080),
  sales: port('SALES_PORT', 8082),
  identity: port('IDENTITY_PORT', 8083),
  payments: port('PAYMENTS_PORT', 8084),
};
/** The gateway's metrics listener (its /metrics, and readiness naming each instance), on loopback. */
const GATEWAY_METRICS_PORT = port('GATEWAY_METRICS_PORT', 9464);
const AMQP_URL = env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const DATA = resolve(env.DATA_DIR ?? join(ROOT, 'data'));
const CLIENTS_FILE = join(DATA, 'identity-clients.json');
const USERS_FILE = join(DATA, 'identity-users.json');
/** Staff sign-in keeps its sessions and failed sign-ins there (ADR 0031). */
const REDIS_URL = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const GATEWAY = `http://localhost:${PORTS.gateway}`;
const ISSUER = `${GATEWAY}/identity`;
const internal = (name: keyof typeof PORTS) => `http://127.0.0.1:${PORTS[name]}`;
/**
 * The offline provider's secret key: its callers' (sales', and a buyer confirming a payment) and its own. A test
 * double's key on loopback, so a fixed one the walkthrough can name; PAYMENTS_API_KEY replaces it.
 */
const PAYMENTS_API_KEY = env.PAYMENTS_API_KEY ?? 'sk_test_start_system_offline';
/** Where the provider sends sales' events: through the gateway, as a provider outside would. */
const PAYMENT_EVENTS_URL = `${GATEWAY}/api/payment-events`;

function fail(line: string): never {
  process.stderr.write(`start:system: ${line}\n`);
  process.exit(1);
}

/** The order the services stop in: no new traffic first, the token issuer last. */
const STOP_ORDER = ['gateway', 'sales', 'payments', 'stock', 'identity'] as const;
/** A service's own stop is bounded by its drain delay (2 s), its grace (10 s) and 2 s for each of three resources. */
const STOP_WITHIN_MS = 25_000;

function linesStyle(): LinesStyle {
  try {
    return { format: chosenFormat(logFormatOf(env), process.stdout), colours: showsColours(process.stdout) };
  } catch (error) {
    fail((error as Error).message);
  }
}
const LINES = linesStyle();

async function brokerIsReachable(): Promise<string | undefined> {
  const quiet = { info() {}, warn() {}, error() {} };
  const broker = new Broker({ url: AMQP_URL, connectionName: 'start:system check', logger: quiet });
  try {
    await broker.waitUntilConnected(5_000);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    broker.connection.unsafeDestroy();
  }
}

const tracingEnv = () => servicesEnv(env);

interface Running {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | string>;
}

const running: Running[] = [];
let stopping = false;

/**
 * Starts a service's main with `extra` settings, in a process group of its
 * own (detached), writing JSON lines that start:system shows; resolves once it listens.
 */
function start(name: keyof typeof PORTS, source: string, extra: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, mainArgs(name, source), {
    cwd: ROOT,
    env: { ...tracingEnv(), PORT: String(PORTS[name]), HOST: env.HOST ?? '127.0.0.1', ...extra, LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const shown = { name, colour: SERVICE_COLOURS[STOP_ORDER.indexOf(name) % SERVICE_COLOURS.length]! };
  // On close, not exit: its last lines ("stopped") are shown before the next service is signalled.
  const exited = new Promise<number | string>((done) => {
    child.once('close', (code, signal) => done(code ?? signal ?? 'unknown'));
  });
  const service: Running = { name, child, exited };
  running.push(service);
  return new Promise((resolveStart, rejectStart) => {
    let listening = false;
    const relay = (stream: NodeJS.ReadableStream, to: NodeJS.WriteStream) => {
      let partial = '';
      stream.on('data', (chunk: Buffer) => {
        const lines = (partial + String(chunk)).split('\n');
        partial = lines.pop()!;
        for (const line of lines) {
          to.write(`${shownLine(shown, line, LINES)}\n`);
          if (!listening && line.includes('listening on')) {
            listening = true;
            resolveStart(service);
          }
        }
      });
    };
    relay(child.stdout, process.stdout);
    relay(child.stderr, process.stderr);
    void exited.then((code) => {
      if (!listening)
        rejectStart(new Error(`the ${name} service exited (${code}) before it listened; its last lines are above`));
      else if (!stopping) {
        process.stderr.write(`start:system: the ${name} service stopped (${code}); stopping the others\n`);
        void stopAll(1);
      }
    });
  });
}

/**
 * Stops the services one at a time in STOP_ORDER, each with `signal` (SIGINT,
 * a person's, skips their drain delay), killing one that has not stopped within
 * STOP_WITHIN_MS; exits 0 when every one stopped cleanly.
 */
async function stopAll(exitCode = 0, signal: NodeJS.Signals = 'SIGTERM'): Promise<never> {
  stopping = true;
  const inOrder = STOP_ORDER.flatMap((name) => running.filter((service) => service.name === name));
  const onKill = (name: string) => {
    process.stderr.write(`start:system: ${name} did not stop within ${STOP_WITHIN_MS / 1000} s; killed it\n`);
  };
  const endings = await stopInOrder(inOrder, signal, STOP_WITHIN_MS, onKill);
  process.exit(exitCode || (endings.every((ending) => ending === 0 || ending === signal) ? 0 : 1));
}

// A terminal's Ctrl-C reaches start:system alone (the services are detached); a second one kills what is left.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) {
      if (signal === 'SIGINT') killAll(running);
      return;
    }
    const names = `${STOP_ORDER.slice(0, -1).join(', ')} and ${STOP_ORDER.at(-1)}`;
    process.stdout.write(`\nstart:system: ${signal}: stopping ${names}, one at a time (Ctrl-C again kills them)\n`);
    void stopAll(0, signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM');
  });
}
// Detached services outlive start:system unless it takes them along as it exits (SIGKILL leaves them running).
process.on('exit', () => killAll(running));

const brokerProblem = await brokerIsReachable();
if (brokerProblem) {
  fail(
    `RabbitMQ is not reachable at ${redactedAmqpUrl(AMQP_URL)} (${brokerProblem}); start it (Debian: rabbitmq-server -detached, after apt-get install rabbitmq-server) or set AMQP_URL.`,
  );
}
let clientsFile: ReturnType<typeof developmentClientsFile>;
try {
  clientsFile = developmentClientsFile(CLIENTS_FILE);
} catch (error) {
  fail((error as Error).message);
}
const { clients: known, created, added, notices } = clientsFile;
const where = relative(process.cwd(), CLIENTS_FILE) || CLIENTS_FILE;
if (added.length > 0)
  process.stdout.write(
    `start:system: added the development client${added.length > 1 ? 's' : ''} ${added.join(', ')} to ${where} (written by an older start:system), with random secrets\n`,
  );
for (const notice of notices) process.stderr.write(`start:system: ${notice}\n`);
const salesClient = known.find((client) => client.clientId === 'sales-service')!;
const backOffice = buildBackOfficeIfStale(ROOT);
if (backOffice.kind === 'built') process.stdout.write(`start:system: ${backOffice.line}\n`);
if (backOffice.kind === 'failed') process.stderr.write(`start:system: ${backOffice.line}\n`);
const firstAdmin = await createFirstAdmin(USERS_FILE, join(DATA, 'identity-admin-password.txt')).catch((error: Error) =>
  fail(error.message),
);

/**
 * Registers sales' webhook endpoint with the provider (a fresh one each run: it keeps its state in memory), for every
 * event, and answers the endpoint's `whsec_…` signing secret, sales' PAYMENTS_WEBHOOK_SECRET.
 */
async function registerPaymentEvents(): Promise<string> {
  const response = await fetch(`${internal('payments')}/v1/webhook_endpoints`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${PAYMENTS_API_KEY}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ url: PAYMENT_EVENTS_URL, 'enabled_events[0]': '*', description: 'sales' }),
  });
  const body = (await response.json()) as { secret?: string };
  if (!response.ok || !body.secret)
    throw new Error(`the payment provider did not register sales' webhook endpoint (${response.status})`);
  return body.secret;
}

// Tokens name the gateway's /identity as their issuer; the services read its keys from the issuer directly.
const auth = {
  AUTH_ISSUER: ISSUER,
  AUTH_DISCOVERY_URL: `${internal('identity')}/identity/.well-known/openid-configuration`,
};
const messaging = { AMQP_URL };
try {
  await start('identity', 'packages/identity/src/main.ts', {
    ISSUER,
    TRUST_PROXY: 'true',
    IDENTITY_CLIENTS_FILE: CLIENTS_FILE,
    IDENTITY_KEYS_FILE: join(DATA, 'identity-keys.json'),
    IDENTITY_USERS_FILE: USERS_FILE,
    REDIS_URL,
  });
  await start('payments', 'packages/offline-payments/src/main.ts', { PAYMENTS_API_KEY });
  const paymentsWebhookSecret = await registerPaymentEvents();
  await Promise.all([
    start('stock', 'packages/stock/service/src/main.ts', {
      ...auth,
      ...messaging,
      DATABASE_URL: `sqlite:${join(DATA, 'stock.db')}`,
      DB_CREATE_DATABASE: 'true',
    }),
    start('sales', 'packages/sales/service/src/main.ts', {
      ...auth,
      ...messaging,
      DATABASE_URL: `sqlite:${join(DATA, 'sales.db')}`,
      DB_CREATE_DATABASE: 'true',
      STOCK_URL: internal('stock'),
      STOCK_CLIENT_ID: salesClient.clientId,
      STOCK_CLIENT_SECRET: salesClient.clientSecret,
      PAYMENTS_API_KEY,
      PAYMENTS_URL: internal('payments'),
      PAYMENTS_WEBHOOK_SECRET: paymentsWebhookSecret,
    }),
  ]);
  // PUBLIC_URL: the host the gateway tells identity (TRUST_PROXY) is the issuer's, never the Host a client sends.
  await start('gateway', 'packages/gateway/src/main.ts', {
    AUTH_ISSUER: ISSUER,
    AUTH_DISCOVERY_URL: auth.AUTH_DISCOVERY_URL,
    PUBLIC_URL: GATEWAY,
    METRICS_PORT: String(GATEWAY_METRICS_PORT),
    METRICS_HOST: '127.0.0.1',
    STOCK_URL: internal('stock'),
    SALES_URL: internal('sales'),
    IDENTITY_URL: internal('identity'),
  });
} catch (error) {
  process.stderr.write(`start:system: ${(error as Error).message}\n`);
  await stopAll(1);
}

const secretOf = (clientId: string) =>
  `"$(node -pe 'JSON.parse(require("fs").readFileSync("${where}")).find((c) => c.clientId === "${clientId}").clientSecret')"`;
process.stdout.write(
  [
    '',
    `The system is up. Everything goes through the gateway: ${GATEWAY}`,
    `  try it in a browser:  ${GATEWAY}/swagger  (Authorize with a client below)`,
    backOfficeLine(GATEWAY, USERS_FILE, firstAdmin, (path) => relative(process.cwd(), path) || path),
    `  clients and secrets:  ${where}${created ? ' (written now, with random secrets)' : ''}: ${DEVELOPMENT_CLIENTS.map(({ clientId, role }) => `${clientId} (${role})`).join(', ')}`,
    `  a token for stock:    curl -s -u stock-admin:${secretOf('stock-admin')} -d grant_type=client_credentials -d resource=${Apis.stock.audience} ${GATEWAY}/identity/token`,
    `  behind it: identity ${internal('identity')}, stock ${internal('stock')}, sales ${internal('sales')}, RabbitMQ ${redactedAmqpUrl(AMQP_URL)}, SQLite files in ${relative(process.cwd(), DATA) || DATA}`,
    `  payments: the offline provider (Stripe's API) at ${internal('payments')}, key ${PAYMENTS_API_KEY}; a buyer confirms with curl -u ${PAYMENTS_API_KEY}: -d payment_method=pm_card_visa ${internal('payments')}/v1/payment_intents/<the order's payment.intentId>/confirm`,
    `  the gateway's metrics and detailed readiness: http://127.0.0.1:${GATEWAY_METRICS_PORT}/metrics, …/health/ready`,
    ...(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
      ? [`  traces go to the OTLP endpoint ${env.OTEL_EXPORTER_OTLP_ENDPOINT.trim()} (OTEL_EXPORTER_OTLP_ENDPOINT)`]
      : []),
    `  Ctrl-C stops the services one at a time: ${STOP_ORDER.join(', ')}.`,
    '',
  ].join('\n'),
);
