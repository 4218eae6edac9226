/**
 * The gateway alone under the soak's load, for as long as asked, to see
 * where its RSS goes (docs/operations.md, "Memory or a table grows"):
 *
 *   node --import tsx tools/drills/src/lab/gateway-memory.ts --minutes 60 --out /tmp/rss/default \
 *     [--node-args=--max-semi-space-size=2] [--env MALLOC_ARENA_MAX=2] [--workers 4] [--pause-ms 20]
 *
 * Behind it: the real issuer (identity) and small HTTP servers on loopback
 * standing for two stock and two sales instances, answering what the soak's
 * requests get (sales' orders call stock's reservations through the gateway,
 * as the real sales does). In front: the soak's mix (reads, restocks, orders,
 * the payment provider's webhooks, order lists) from `workers` loops pausing `pause-ms`, as in
 * tools/drills/src/drills/soak.ts. The gateway runs as the drills start it,
 * plus memory-sampler.ts; every 10 s its VmRSS is written to rss.csv and the
 * sampler's heap figures to heap.jsonl. No PostgreSQL, RabbitMQ or Redis.
 */
import { CLIENTS, SALES, STOCK, tokenFor } from '@commerce/identity/testing';
import { freePort } from '@platform/test-kit';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sleep } from '../cluster';
import { slope } from '../drills/soak';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const SAMPLER = pathToFileURL(fileURLToPath(new URL('./memory-sampler.ts', import.meta.url))).href;

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    out: { type: 'string' },
    'node-args': { type: 'string', default: '' },
    env: { type: 'string', multiple: true, default: [] },
    workers: { type: 'string', default: '4' },
    'pause-ms': { type: 'string', default: '20' },
  },
});
if (!values.out) throw new Error('--out DIR is required');
const out = values.out;
mkdirSync(out, { recursive: true });
const minutes = Number(values.minutes);
const workers = Number(values.workers);
const pauseMs = Number(values['pause-ms']);
const nodeArgs = values['node-args'].split(' ').filter(Boolean);
const extraEnv = Object.fromEntries(values.env.map((pair) => pair.split(/=(.*)/s).slice(0, 2) as [string, string]));
const log = (message: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);

const children: ChildProcess[] = [];
/** Starts `main` as the drills do (node --import tsx), with `args` before and the `preload` module after tsx. */
function start(
  name: string,
  main: string,
  { args = [], preload, env }: { args?: string[]; preload?: string; env: Record<string, string> },
  port: number,
): ChildProcess {
  const child = spawn(
    process.execPath,
    [...args, '--import', TSX, ...(preload ? ['--import', preload] : []), join(ROOT, main)],
    {
      cwd: ROOT,
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const logFile = join(out, `${name}.log`);
  child.stdout.on('data', (chunk: Buffer) => appendFileSync(logFile, chunk));
  child.stderr.on('data', (chunk: Buffer) => appendFileSync(logFile, chunk));
  children.push(child);
  return child;
}

async function live(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${url}/health/live`).then(
      (r) => r.status === 200,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await sleep(200);
  }
}

// The stand-ins for stock and sales: Koa-like small JSON answers, each with its length.
function json(res: ServerResponse, status: number, body: unknown, req: IncomingMessage): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'x-request-id': String(req.headers['x-request-id'] ?? ''),
    vary: 'Origin',
  });
  res.end(text);
}
const product = (id: string) => ({
  id,
  sku: `SKU-${id.slice(0, 8)}`,
  name: 'Lamp',
  description: 'A lamp for the soak',
  priceCents: 1999,
  currency: 'EUR',
  stock: 10_000_000,
  reserved: 120,
  version: 42,
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});
const order = (id: string) => ({
  id,
  buyerId: 'buyer-a',
  status: 'RESERVED',
  lines: [{ productId: randomUUID(), quantity: 1, unitPriceCents: 1999 }],
  totalCents: 1999,
  currency: 'EUR',
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

let gatewayUrl = '';
let salesToken = '';

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

/** Node's request listener for an async handler: a failure cuts that connection, not the lab. */
function answering(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>) {
  return (req: IncomingMessage, res: ServerResponse) => void handle(req, res).catch(() => res.destroy());
}

function stockServer(): Server {
  return createServer(
    answering(async (req, res) => {
      await readBody(req);
      const url = req.url ?? '/';
      if (url === '/health/ready')
        return json(res, 200, { status: 'ready', checks: { database: 'up', broker: 'up' } }, req);
      if (url.startsWith('/health/live')) return json(res, 200, { status: 'live' }, req);
      if (url.startsWith('/api/reservations'))
        return json(
          res,
          req.method === 'POST' ? 201 : 200,
          {
            id: randomUUID(),
            status: 'HELD',
            lines: [{ productId: randomUUID(), quantity: 1 }],
            expiresAt: new Date(Date.now() + 60_000).toISOString(),
          },
          req,
        );
      if (url.startsWith('/api/products/')) return json(res, 200, product(url.split('/')[3] ?? randomUUID()), req);
      return json(res, 404, { type: 'about:blank', title: 'Not Found', status: 404 }, req);
    }),
  );
}

function salesServer(): Server {
  return createServer(
    answering(async (req, res) => {
      await readBody(req);
      const url = req.url ?? '/';
      if (url === '/health/ready')
        return json(res, 200, { status: 'ready', checks: { database: 'up', broker: 'up', stock: 'up' } }, req);
      if (url.startsWith('/health/live')) return json(res, 200, { status: 'live' }, req);
      const paymentEvent = url === '/api/payment-events';
      if (req.method === 'POST' && (url === '/api/orders' || paymentEvent)) {
        // As sales does: a hold on stock for an order, or its commit for a payment's event, through the gateway.
        const path = url === '/api/orders' ? '/api/reservations' : `/api/reservations/${randomUUID()}/commit`;
        const answer = await fetch(`${gatewayUrl}${path}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${salesToken}`,
            'content-type': 'application/json',
            'idempotency-key': randomUUID(),
          },
          body: JSON.stringify({ lines: [{ productId: randomUUID(), quantity: 1 }] }),
        });
        await answer.arrayBuffer();
        if (paymentEvent) return json(res, 200, { received: true, outcome: 'applied' }, req);
        return json(res, 202, order(randomUUID()), req);
      }
      if (url.startsWith('/api/orders?'))
        return json(res, 200, { items: Array.from({ length: 10 }, () => order(randomUUID())), next: null }, req);
      if (url.startsWith('/api/orders/')) return json(res, 200, order(url.split('/')[3]!), req);
      return json(res, 404, { type: 'about:blank', title: 'Not Found', status: 404 }, req);
    }),
  );
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

function statusOf(pid: number): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const [name, value] = line.split(/:\s+/);
    if (name && value && /^(VmRSS|RssAnon|RssFile|VmHWM|Threads)$/.test(name))
      fields[name] = Number(value.replace(/\D+/g, '')) / (name === 'Threads' ? 1 : 1024);
  }
  // utime + stime (clock ticks, 100 a second here), fields 14 and 15 of /proc/<pid>/stat.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  fields.cpuSeconds = (Number(stat[11]) + Number(stat[12])) / 100;
  return fields;
}

const servers = [stockServer(), stockServer(), salesServer(), salesServer()];
let stopping = false;
async function stopEverything(): Promise<void> {
  stopping = true;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await sleep(2_000);
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void stopEverything().finally(() => process.exit(130)));

try {
  const [stockA, stockB, salesA, salesB] = await Promise.all(servers.map(listen));
  const gatewayPort = await freePort();
  gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const issuer = `${gatewayUrl}/identity`;
  const clientsFile = join(out, 'clients.json');
  writeFileSync(clientsFile, JSON.stringify(CLIENTS), { mode: 0o600 });
  const identityPort = await freePort();
  const identityUrl = `http://127.0.0.1:${identityPort}`;
  const identityEnv = {
    ISSUER: issuer,
    IDENTITY_CLIENTS_FILE: clientsFile,
    IDENTITY_KEYS_FILE: join(out, 'keys.json'),
    ACCESS_TOKEN_TTL_SECONDS: '3600',
    LOG_LEVEL: 'warn',
    SHUTDOWN_DELAY_MS: '0',
  };
  start('identity', 'packages/identity/src/main.ts', { env: identityEnv }, identityPort);
  await live(identityUrl);
  const samplesFile = join(out, 'heap.jsonl');
  writeFileSync(samplesFile, '');
  const gateway = start(
    'gateway',
    'packages/gateway/src/main.ts',
    {
      args: nodeArgs,
      preload: SAMPLER,
      env: {
        STOCK_URL: `${stockA},${stockB}`,
        SALES_URL: `${salesA},${salesB}`,
        IDENTITY_URL: identityUrl,
        AUTH_ISSUER: issuer,
        AUTH_DISCOVERY_URL: `${identityUrl}/identity/.well-known/openid-configuration`,
        UPSTREAM_CHECK_MS: '200',
        RATE_LIMIT_PER_MINUTE: '0',
        LOG_LEVEL: 'warn',
        SHUTDOWN_DELAY_MS: '0',
        MEMORY_SAMPLES_FILE: samplesFile,
        ...extraEnv,
      },
    },
    gatewayPort,
  );
  await live(gatewayUrl);
  log(
    `gateway ${gateway.pid} on ${gatewayUrl} (${[...nodeArgs, ...values.env].join(' ') || 'defaults'}); ${minutes} min`,
  );

  // Tokens as the drill's clients hold them: renewed at half their life.
  const tokens = new Map<string, { token: string; at: number }>();
  const tokenOf = async (clientId: string, resource: string) => {
    const held = tokens.get(clientId);
    if (held && Date.now() - held.at < 1_800_000) return held.token;
    const token = await tokenFor(issuer, clientId, resource);
    tokens.set(clientId, { token, at: Date.now() });
    return token;
  };
  salesToken = await tokenOf('inventory-sync', STOCK);

  const tally = { sent: 0, failed: 0 };
  const call = async (
    path: string,
    init: { method?: string; token?: string; body?: unknown; idempotent?: boolean },
  ) => {
    tally.sent++;
    try {
      const response = await fetch(`${gatewayUrl}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          ...(init.token && { authorization: `Bearer ${init.token}` }),
          ...(init.body !== undefined && { 'content-type': 'application/json' }),
          ...(init.idempotent && { 'idempotency-key': randomUUID() }),
        },
        ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
        signal: AbortSignal.timeout(30_000),
      });
      await response.text();
      if (response.status >= 400) tally.failed++;
    } catch {
      tally.failed++;
    }
  };
  const lamp = randomUUID();
  const loops = Array.from({ length: workers }, async () => {
    for (let i = 0; !stopping; i++) {
      const [writer, buyer] = [await tokenOf('inventory-sync', STOCK), await tokenOf('buyer-a', SALES)];
      salesToken = writer;
      switch (i % 5) {
        case 0:
        case 1:
          await call(`/api/products/${lamp}`, { token: writer });
          break;
        case 2:
          await call(`/api/products/${lamp}/stock-adjustments`, {
            method: 'POST',
            token: writer,
            body: { delta: 1 },
            idempotent: true,
          });
          break;
        case 3:
          await call('/api/orders', {
            method: 'POST',
            token: buyer,
            body: { lines: [{ productId: lamp, quantity: 1 }] },
            idempotent: true,
          });
          break;
        default:
          // The provider's webhook for a paid order: no token, as the gateway routes it to sales.
          if (i % 10 === 4)
            await call('/api/payment-events', {
              method: 'POST',
              body: { id: `evt_${randomUUID()}`, type: 'payment_intent.succeeded', data: { object: {} } },
            });
          else await call('/api/orders?limit=10', { token: buyer });
      }
      if (pauseMs > 0) await sleep(pauseMs);
    }
  });

  const rssFile = join(out, 'rss.csv');
  writeFileSync(rssFile, 'minutes,rss_mib,rss_anon_mib,rss_file_mib,hwm_mib,threads,requests,failed,cpu_s\n');
  const points: [number, number][] = [];
  let cpuSeconds = 0;
  const began = Date.now();
  const end = began + minutes * 60_000;
  while (Date.now() < end && gateway.exitCode === null) {
    await sleep(10_000);
    const at = (Date.now() - began) / 60_000;
    const s = statusOf(gateway.pid!);
    points.push([at, s.VmRSS!]);
    cpuSeconds = s.cpuSeconds!;
    appendFileSync(
      rssFile,
      `${at.toFixed(2)},${s.VmRSS!.toFixed(1)},${s.RssAnon!.toFixed(1)},${s.RssFile!.toFixed(1)},${s.VmHWM!.toFixed(1)},${s.Threads},${tally.sent},${tally.failed},${s.cpuSeconds!.toFixed(1)}\n`,
    );
  }
  const exited = gateway.exitCode;
  // V8's collections as the gateway's metrics count them: what a smaller young generation costs.
  const gc = await fetch(`${gatewayUrl}/metrics`)
    .then((response) => response.text())
    .then((text) =>
      Object.fromEntries(
        [...text.matchAll(/^nodejs_gc_duration_seconds_(sum|count)\{kind="(\w+)"\} (\S+)$/gm)].map(
          ([, what, kind, value]) => [`${kind} ${what}`, Number(value)],
        ),
      ),
    )
    .catch(() => ({}));
  stopping = true;
  await Promise.all(loops);
  const half = (from: number, to: number) => slope(points.filter(([at]) => at >= from && at <= to));
  const summary = {
    setting: [...nodeArgs, ...values.env].join(' ') || 'defaults',
    minutes,
    requests: tally.sent,
    failed: tally.failed,
    gatewayExited: exited,
    rssFirst: points[0]?.[1],
    rssLast: points.at(-1)?.[1],
    rssMax: Math.max(...points.map(([, rss]) => rss)),
    slopeFirstHalf: half(0, minutes / 2),
    slopeSecondHalf: half(minutes / 2, minutes),
    slopeAfterFirstThird: half(minutes / 3, minutes),
    gatewayCpuMsPerRequest: (cpuSeconds * 1000) / tally.sent,
    gc,
  };
  writeFileSync(join(out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  log(JSON.stringify(summary));
} finally {
  await stopEverything();
}
