import autocannon from 'autocannon';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { adminQuery } from '@platform/test-kit';
import { instructionsOf } from './callgrind';
import { BENCH_DB, prepareStorage, seedOverHttp } from './storage';
import { programOf } from './target-process';
import { startOtlpSink } from './otlp-sink';
import { OTLP_SINK, servicesAt, type Target, TARGETS, withSink } from './targets';
import { type LagReceiver, startLagReceiver, subscribeForLag } from './webhook-lag';
import { WORKLOADS } from './workloads';

/**
 * pnpm bench:instructions: user-space instructions per request on the target's
 * main thread, counted by valgrind's callgrind after a warm-up. On this shared
 * two-core machine req/s moves by ±30 % with whatever else runs; a count of
 * instructions does not, so it is what a change's before and after are
 * compared by (docs/performance.md). It leaves out the kernel (socket writes)
 * and the other threads (V8's optimising compiler, GC helpers, libuv's pool).
 */
const { values: options } = parseArgs({
  options: {
    only: { type: 'string' },
    workloads: { type: 'string', default: 'GET one' },
    warm: { type: 'string', default: '8000' },
    requests: { type: 'string', default: '3000' },
    products: { type: 'string', default: '1000' },
    out: { type: 'string', default: 'bench-results' },
    /**
     * Other checkouts of the workspace (earlier commits, installed), comma-separated: their service runs beside this
     * one's.
     */
    'compare-with': { type: 'string' },
  },
});

function waitForPort(child: ChildProcess, errors: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += String(chunk);
      const listening =
        /"message":"listening","port":(\d+)/.exec(buffer) ?? /"url":"http:\/\/[^"]*:(\d+)"/.exec(buffer);
      if (listening) resolve(Number(listening[1]));
      if (buffer.length > 1_000_000) buffer = buffer.slice(-1000);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening: ${errors().slice(-2000)}`)));
  });
}

async function count(
  target: Target,
  workloadName: string,
  scratch: string,
): Promise<{ perRequest: number; requests: number }> {
  const workload = WORKLOADS.find((w) => w.name === workloadName)!;
  const products = Number(options.products);
  const databaseUrl = await prepareStorage(target.storage, products, scratch, target.cwd);
  const output = join(scratch, `callgrind-${Date.now()}.out`);
  const workspace = join(import.meta.dirname, '..', '..', '..');
  const program = await programOf(target.script, target.cwd ?? workspace);
  const callgrind = ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes'];
  const loader = program.tsx ? ['--import', 'tsx'] : ['--enable-source-maps'];
  const node = [target.node ?? process.execPath, ...loader, program.file];
  const child = spawn('valgrind', [...callgrind, `--callgrind-out-file=${output}`, ...node], {
    cwd: target.cwd ?? workspace,
    env: {
      ...process.env,
      PORT: '0',
      DATABASE_URL: databaseUrl,
      DB_POOL_SIZE: '10',
      NODE_ENV: 'production',
      ...(sink && target.env ? withSink(target.env, sink.endpoint) : target.env),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors = (errors + String(chunk)).slice(-4000)));
  let receiver: LagReceiver | undefined;
  try {
    const base = `http://127.0.0.1:${await waitForPort(child, () => errors)}`;
    if (target.storage === 'memory') await seedOverHttp(base, products);
    // Webhooks on: one subscriber; what the warm-up wrote is delivered before counting starts, and counting stops when
    // the measured requests' webhooks have arrived, so a request's count includes delivering its webhook.
    if (target.webhookLag) {
      receiver = await startLagReceiver();
      await subscribeForLag(base, receiver.url);
    }
    // Until `count` webhooks arrived, or none for 10 s (a delivery waiting out a retry's back-off): said on stderr.
    const delivered = async (count: number) => {
      for (let seen = -1, quietSince = Date.now(); receiver && receiver.lagsMs.length < count;) {
        if (receiver.lagsMs.length !== seen) [seen, quietSince] = [receiver.lagsMs.length, Date.now()];
        if (Date.now() - quietSince > 10_000) {
          process.stderr.write(`${target.name}: ${seen} of ${count} webhooks delivered; counting goes on\n`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await workload.setup?.(base, {});
    const requests = workload.requests({ products });
    // Warm-up: under valgrind V8 needs thousands of requests before its code stops changing.
    await autocannon({ url: base, connections: 8, amount: Number(options.warm), requests, timeout: 60 });
    await delivered(Number(options.warm));
    execFileSync('callgrind_control', ['--instr=on', String(child.pid)], { stdio: 'ignore' });
    const measured = await autocannon({
      url: base,
      connections: 8,
      amount: Number(options.requests),
      requests,
      timeout: 60,
    });
    await delivered(Number(options.warm) + Number(options.requests));
    execFileSync('callgrind_control', ['--instr=off', String(child.pid)], { stdio: 'ignore' });
    const answered = measured.requests.total - measured.non2xx - measured.errors;
    if (answered !== Number(options.requests))
      throw new Error(`${measured.non2xx} non-2xx answers and ${measured.errors} errors while counting`);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    // The main thread's file ends in -01; the others are V8's and libuv's helper threads.
    return { perRequest: instructionsOf(readFileSync(`${output}-01`, 'utf8')) / answered, requests: answered };
  } finally {
    child.kill('SIGKILL');
    await receiver?.close();
    if (target.storage === 'postgresql') await adminQuery(`drop database if exists "${BENCH_DB}" with (force)`);
  }
}

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  process.stderr.write('pnpm bench:instructions needs valgrind (Debian: apt-get install valgrind).\n');
  process.exit(1);
}

const comparisons = (options['compare-with'] ?? '').split(',').filter(Boolean);
const compared: Target[] = comparisons.flatMap((checkout) => servicesAt(checkout, basename(checkout)));
/** A name given as `=name` must be the whole name (as in pnpm bench); otherwise any target whose name contains it. */
const matches = (name: string, given: string) =>
  given.startsWith('=')
    ? name.toLowerCase() === given.slice(1).toLowerCase()
    : name.toLowerCase().includes(given.toLowerCase());
const targets = [...TARGETS, ...compared].filter(
  (t) => (!t.workloads || t.webhookLag) && (!options.only || options.only.split(',').some((o) => matches(t.name, o))),
);
const workloads = options.workloads
  .split(',')
  .map((name) => WORKLOADS.find((w) => w.name.toLowerCase().includes(name.toLowerCase()))?.name ?? name);
// A traced target exports to the harness's sink, as in pnpm bench: without one its exporter has no address.
const sink = targets.some((t) => Object.values(t.env ?? {}).includes(OTLP_SINK)) ? await startOtlpSink() : undefined;
const scratch = mkdtempSync(join(tmpdir(), 'stock-instructions-'));
const rows: { workload: string; target: string; perRequest: number; baseline?: string }[] = [];
try {
  for (const workload of workloads) {
    for (const target of targets) {
      const { perRequest } = await count(target, workload, scratch);
      rows.push({ workload, target: target.name, perRequest, ...(target.baseline && { baseline: target.baseline }) });
      process.stderr.write(
        `${workload.padEnd(20)} ${target.name.padEnd(44)} ${(perRequest / 1000).toFixed(1)}k instructions per request\n`,
      );
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
  await sink?.close();
}
const ratio = (row: (typeof rows)[number]) => {
  const baseline = rows.find((r) => r.workload === row.workload && r.target === row.baseline);
  return baseline
    ? `${(baseline.perRequest / row.perRequest).toFixed(2)} of ${row.baseline}`
    : row.baseline
      ? ''
      : 'baseline';
};
const table = [
  `Instructions per request on the main thread (callgrind), after ${options.warm} requests of warm-up, over ${options.requests}; Node ${process.version}. A ratio is the baseline's count over the target's: like req/s, higher is better.`,
  '',
  '| Workload | Target | k instructions per request | ratio |',
  '| --- | --- | ---: | --- |',
  ...rows.map((row) => `| ${row.workload} | ${row.target} | ${(row.perRequest / 1000).toFixed(1)} | ${ratio(row)} |`),
].join('\n');
mkdirSync(options.out, { recursive: true });
writeFileSync(join(options.out, 'instructions.md'), `${table}\n`);
writeFileSync(
  join(options.out, 'instructions.json'),
  JSON.stringify({ at: new Date().toISOString(), node: process.version, options, rows }, null, 2),
);
process.stdout.write(`${table}\n`);
