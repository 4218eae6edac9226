/**
 * pnpm bench:startup [--reps N] [--requests N]: the stock service on SQLite (a new file in a temp directory each
 * start) started three ways, interleaved in one run (ADR 0025):
 *   built  node --enable-source-maps dist/stock.js   (production)
 *   tsx    node --import tsx packages/stock/service/src/main.ts   (how every start ran before the build)
 *   pnpm   pnpm start   (the stale check, then the built entry under pnpm)
 * For each: the time from spawn to the first 200 from /health/ready, the service's RSS then (and pnpm's own for
 * `pnpm start`), and the CPU (user + system, all threads, from /proc) the service spends per GET of one product
 * over N sequential keep-alive GETs. Prints one row per start, then the medians.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './report';
import { cpuSeconds, rssMiB } from './target-process';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const { values } = parseArgs({
  options: { reps: { type: 'string', default: '5' }, requests: { type: 'string', default: '2000' } },
});
const REPS = Number(values.reps);
const REQUESTS = Number(values.requests);
const PORT = 18_700;
const BASE = `http://127.0.0.1:${PORT}`;

interface Way {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
}
const WAYS: readonly Way[] = [
  { name: 'built', command: process.execPath, args: ['--enable-source-maps', 'dist/stock.js'] },
  { name: 'tsx', command: process.execPath, args: ['--import', 'tsx', 'packages/stock/service/src/main.ts'] },
  { name: 'pnpm start', command: 'pnpm', args: ['start'] },
];

interface Sample {
  readonly way: string;
  readonly readyMs: number;
  readonly rssMiB: number;
  readonly wrapperRssMiB?: number;
  readonly cpuUsPerRequest: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The process running dist/stock.js among `pid`'s descendants (pnpm runs sh, which execs node). */
function serviceUnder(pid: number): number | undefined {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean);
  for (const child of children.map(Number)) {
    const args = readFileSync(`/proc/${child}/cmdline`, 'utf8');
    if (args.includes('dist/stock.js')) return child;
    const deeper = serviceUnder(child);
    if (deeper !== undefined) return deeper;
  }
  return undefined;
}

async function untilReady(child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} before it was ready`);
    try {
      const response = await fetch(`${BASE}/health/ready`);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(10);
  }
}

async function measure(way: Way): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
  const started = performance.now();
  const child = spawn(way.command, way.args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(dir, 'stock.db')}`,
      DB_CREATE_DATABASE: 'true',
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  // The access log is read and thrown away, as a log collector would read it.
  child.stdout.on('data', () => {});
  try {
    await untilReady(child);
    const readyMs = performance.now() - started;
    const service = way.command === 'pnpm' ? serviceUnder(child.pid!) : child.pid!;
    if (service === undefined) throw new Error('no dist/stock.js under pnpm start');
    const rss = rssMiB(service);
    const wrapperRss = way.command === 'pnpm' ? rssMiB(child.pid!) : undefined;
    const created = await fetch(`${BASE}/api/products`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Desk lamp', description: 'Warm light', price: 39.9, quantityInStock: 12 }),
    });
    const { id } = (await created.json()) as { id: number };
    for (let i = 0; i < 200; i++) await (await fetch(`${BASE}/api/products/${id}`)).arrayBuffer();
    const before = cpuSeconds(service);
    for (let i = 0; i < REQUESTS; i++) {
      const response = await fetch(`${BASE}/api/products/${id}`);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`GET answered ${response.status}`);
    }
    const cpuUsPerRequest = ((cpuSeconds(service) - before) / REQUESTS) * 1e6;
    return {
      way: way.name,
      readyMs,
      rssMiB: rss,
      ...(wrapperRss !== undefined && { wrapperRssMiB: wrapperRss }),
      cpuUsPerRequest,
    };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid!, 'SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group has gone
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
const fixed = (n: number | undefined, digits = 0) => (n === undefined ? '–' : n.toFixed(digits));

// dist/ fresh first: a rebuild inside the first `pnpm start` would be timed as its start.
const check = spawnSync(process.execPath, [join(ROOT, 'tools/build/src/build-record.ts')], { stdio: 'inherit' });
if (check.status !== 0) process.exit(1);

process.stdout.write(
  `stock service on SQLite, ${REPS} starts of each way interleaved, ${REQUESTS} GETs of one product after each; node ${process.version}\n\n`,
);
process.stdout.write(`${row(['rep', 'way', 'ready ms', 'RSS MiB', 'pnpm RSS MiB', 'CPU µs/GET'])}\n`);
const samples: Sample[] = [];
for (let rep = 1; rep <= REPS; rep++) {
  for (const way of WAYS) {
    const sample = await measure(way);
    samples.push(sample);
    const cells = [String(rep), way.name, fixed(sample.readyMs), fixed(sample.rssMiB), fixed(sample.wrapperRssMiB)];
    process.stdout.write(`${row([...cells, fixed(sample.cpuUsPerRequest)])}\n`);
  }
}
process.stdout.write(`\nmedians\n\n${row(['way', 'ready ms', 'RSS at ready MiB', 'pnpm RSS MiB', 'CPU µs/GET'])}\n`);
process.stdout.write(`${row(['---', '---:', '---:', '---:', '---:'])}\n`);
for (const way of WAYS) {
  const of = samples.filter((s) => s.way === way.name);
  const wrapper = of.flatMap((s) => (s.wrapperRssMiB === undefined ? [] : [s.wrapperRssMiB]));
  process.stdout.write(
    `${row([
      way.name,
      fixed(median(of.map((s) => s.readyMs))),
      fixed(median(of.map((s) => s.rssMiB))),
      fixed(wrapper.length ? median(wrapper) : undefined),
      fixed(median(of.map((s) => s.cpuUsPerRequest))),
    ])}\n`,
  );
}
