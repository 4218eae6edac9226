import autocannon from 'autocannon';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type CpuProfile, flameGraphSvg, inclusiveTimeByArea, selfTimeByArea } from './cpu-profile';
import { TARGETS } from './targets';
import { BENCH_DB, prepareStorage, seedOverHttp } from './storage';
import { startTarget, stop } from './target-process';
import { adminQuery } from '@platform/test-kit';
import { WORKLOADS } from './workloads';
import { startLagReceiver, subscribeForLag } from './webhook-lag';

/**
 * pnpm bench:profile: one target under --cpu-prof at saturation for one workload; a flame graph and the time by area.
 */
const { values: options } = parseArgs({
  options: {
    target: { type: 'string', default: 'service · memory' },
    workload: { type: 'string', default: 'GET one' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    products: { type: 'string', default: '1000' },
    out: { type: 'string', default: 'bench-results' },
  },
});
const target = TARGETS.find((t) => t.name === options.target);
const workload = WORKLOADS.find((w) => w.name === options.workload);
if (!target || !workload)
  throw new Error(
    `Usage: pnpm bench:profile --target <${TARGETS.map((t) => t.name).join(' | ')}> --workload <${WORKLOADS.map((w) => w.name).join(' | ')}>`,
  );
const products = Number(options.products);
const directory = mkdtempSync(join(tmpdir(), 'stock-profile-'));
const url = await prepareStorage(target.storage, products, directory);
const { child, base, token } = await startTarget(target.script, url, '10', target.env, [
  '--cpu-prof',
  `--cpu-prof-dir=${directory}`,
]);
// A target that checks tokens hands one out; every request carries it, as in pnpm bench.
const requests = workload
  .requests({ products })
  .map((request) =>
    token ? { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } } : request,
  );
// Webhooks on: one subscriber, as in pnpm bench, so the profile holds the deliveries too.
const receiver = target.webhookLag ? await startLagReceiver() : undefined;
try {
  if (target.storage === 'memory') await seedOverHttp(base, products, token);
  if (receiver) await subscribeForLag(base, receiver.url, token);
  await autocannon({ url: base, connections: 8, amount: 2000, requests });
  const saturated = await autocannon({
    url: base,
    connections: Number(options.connections),
    duration: Number(options.seconds),
    requests,
  });
  if (saturated.non2xx > 0 || saturated.errors > 0)
    throw new Error(
      `${saturated.non2xx} answers other than 2xx and ${saturated.errors} errors: the profile would not show the work asked for`,
    );
} finally {
  await stop(child);
  await receiver?.close();
}
if (target.storage === 'postgresql') await adminQuery(`drop database if exists "${BENCH_DB}" with (force)`);
const file = readdirSync(directory).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error('no profile was written');
const raw = readFileSync(join(directory, file), 'utf8');
const profile = JSON.parse(raw) as CpuProfile;
rmSync(directory, { recursive: true, force: true });
mkdirSync(options.out, { recursive: true });
const slug = `${target.name}-${workload.name}`.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
// The raw profile too: it opens in Chrome DevTools and speedscope.
writeFileSync(join(options.out, `profile-${slug}.cpuprofile`), raw);
writeFileSync(
  join(options.out, `flame-${slug}.svg`),
  flameGraphSvg(profile, `${target.name}, ${workload.name}: CPU by stack (seeding and warm-up included)`),
);
const table = (rows: { area: string; share: number }[]) =>
  rows
    .slice(0, 15)
    .map(({ area, share }) => `| ${area} | ${(share * 100).toFixed(1)} % |`)
    .join('\n');
const report = `${target.name}, ${workload.name}\n\nSelf time by area (busy samples):\n\n| area | share |\n| --- | ---: |\n${table(selfTimeByArea(profile))}\n\nInclusive time by area:\n\n| area | share |\n| --- | ---: |\n${table(inclusiveTimeByArea(profile))}\n`;
writeFileSync(join(options.out, `profile-${slug}.md`), report);
process.stdout.write(report);
