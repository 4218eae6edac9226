import type { Bound, Change, Goal, LagGoal } from './goals';
import type { Target } from './targets';

export interface Measurement {
  readonly target: string;
  readonly workload: string;
  readonly rep: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** CPU cores the server used while saturated (1.0 = one core busy). */
  readonly serverCpu: number;
  /** The server's CPU time (every thread, user + system) over the saturated run, per request it answered. */
  readonly cpuMicrosPerRequest: number;
  readonly check: string;
  /** p50 at the fixed rate, to the microsecond (pacedLatency), for GET one: what an added layer is measured by. */
  readonly fixedRateP50Ms?: number;
  /** With webhooks on: movement → receiver on loopback, over the saturated and the paced runs, and how many arrived. */
  readonly webhookLagP50Ms?: number;
  readonly webhookLagP99Ms?: number;
  readonly webhooksDelivered?: number;
  /** With webhooks on, on the stock −1: the paced run at a share of webhooks off's req/s (issue 36). */
  readonly lagRun?: LagRun;
  /** Why that run did not happen (webhooks off was not measured in the same repetition). */
  readonly lagRunSkipped?: string;
}

/**
 * A fixed amount of stock −1 paced at a share of the req/s the same service kept with webhooks off, saturated, in the
 * same repetition, and the delivery lag of that run's events alone.
 */
export interface LagRun {
  readonly offRequestsPerSecond: number;
  /** The rate asked for, and the one kept (requests answered ÷ the run's time). */
  readonly rate: number;
  readonly requestsPerSecond: number;
  readonly sold: number;
  readonly delivered: number;
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly check: string;
}

export interface Row {
  readonly target: string;
  readonly workload: string;
  readonly baseline?: string;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly serverCpu: number;
  readonly cpuMicrosPerRequest: number;
  /** req/s ÷ the baseline's req/s, medians of the same run. */
  readonly ratio?: number;
  readonly checks: string[];
  readonly fixedRateP50Ms?: number;
  /** For a target that adds a layer: its fixed-rate p50 minus its baseline's (medians of the same run). */
  readonly addedP50Ms?: number;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export function summarise(measurements: Measurement[], targets: readonly Target[]): Row[] {
  const rows: Row[] = [];
  const workloads = [...new Set(measurements.map((m) => m.workload))];
  for (const workload of workloads) {
    for (const target of targets) {
      const runs = measurements.filter((m) => m.target === target.name && m.workload === workload);
      if (runs.length === 0) continue;
      const precise = runs.flatMap((m) => (m.fixedRateP50Ms === undefined ? [] : [m.fixedRateP50Ms]));
      rows.push({
        target: target.name,
        workload,
        ...(target.baseline && { baseline: target.baseline }),
        requestsPerSecond: median(runs.map((m) => m.requestsPerSecond)),
        p50Ms: median(runs.map((m) => m.p50Ms)),
        p99Ms: median(runs.map((m) => m.p99Ms)),
        serverCpu: median(runs.map((m) => m.serverCpu)),
        cpuMicrosPerRequest: median(runs.map((m) => m.cpuMicrosPerRequest)),
        checks: [...new Set(runs.map((m) => m.check))],
        ...(precise.length > 0 && { fixedRateP50Ms: median(precise) }),
      });
    }
  }
  const layers = new Set(targets.filter((target) => target.addsLatency).map((target) => target.name));
  return rows.map((row) => {
    const base = rows.find((r) => r.workload === row.workload && r.target === row.baseline);
    if (!base) return row;
    const added =
      layers.has(row.target) && row.fixedRateP50Ms !== undefined && base.fixedRateP50Ms !== undefined
        ? { addedP50Ms: row.fixedRateP50Ms - base.fixedRateP50Ms }
        : {};
    return { ...row, ratio: row.requestsPerSecond / base.requestsPerSecond, ...added };
  });
}

/**
 * What each added layer costs (the gateway's hop, the token check): throughput against its baseline, and p50 added at a
 * fixed rate.
 */
export function addedCostTable(rows: Row[], meta: Pick<RunMeta, 'rate'>): string {
  const layers = rows.filter((row) => row.addedP50Ms !== undefined);
  if (layers.length === 0) return '';
  const ms = (value: number) => value.toFixed(3);
  const lines = [
    `What each layer adds: throughput as a ratio of its baseline (saturated), and p50 at a fixed ${meta.rate} req/s measured to the microsecond (medians).`,
    '',
    '| Workload | Layer | Baseline | throughput ratio | p50 ms | baseline p50 ms | added p50 ms |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: |',
  ];
  for (const row of layers) {
    const base = rows.find((r) => r.workload === row.workload && r.target === row.baseline)!;
    lines.push(
      `| ${row.workload} | ${row.target} | ${row.baseline} | **${row.ratio!.toFixed(2)}** | ${ms(row.fixedRateP50Ms!)} | ${ms(base.fixedRateP50Ms!)} | **${ms(row.addedP50Ms!)}** |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** What a run was, as its table's heading tells it (the figures as given on the command line, or counted). */
export interface RunMeta {
  readonly date: string;
  readonly node: string;
  readonly reps: number | string;
  readonly seconds: number | string;
  readonly connections: number | string;
  readonly rate: number | string;
  readonly pool: number | string;
  readonly products: number | string;
}

export function markdownTable(rows: Row[], meta: RunMeta): string {
  const lines = [
    `Run ${meta.date.slice(0, 16)}Z, Node ${meta.node}, ${meta.reps} interleaved repetitions (medians), ${meta.seconds} s per workload at ${meta.connections} connections, latency at a fixed ${meta.rate} req/s, pool ${meta.pool}, ${meta.products} products.`,
    '',
    '| Workload | Target | req/s | CPU µs/req | ratio to baseline | p50 ms | p99 ms | server CPU | check |',
    '| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- |',
  ];
  for (const row of rows) {
    const ratio =
      row.ratio === undefined ? (row.baseline ? '' : 'baseline') : `**${row.ratio.toFixed(2)}** of ${row.baseline}`;
    const cpu = Math.round(row.cpuMicrosPerRequest);
    const latency = `${row.p50Ms} | ${row.p99Ms}`;
    const rate = Math.round(row.requestsPerSecond);
    const cores = row.serverCpu.toFixed(2);
    const cells = [row.workload, row.target, rate, cpu, ratio, latency, cores, row.checks.join('; ')];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}

const rowOf = (rows: Row[], target: string, workload: string) =>
  rows.find((r) => r.target === target && r.workload === workload);

/** Two decimals, or three cut short where rounding would show a missed target as reached. */
function shownRatio(ratio: number, atLeast: number): string {
  const short = ratio.toFixed(2);
  return ratio < atLeast && Number(short) >= atLeast ? (Math.floor(ratio * 1000) / 1000).toFixed(3) : short;
}

/** Each line of an issue's table of targets, per workload: the ratio (medians of the same run), met or missed. */
export function goalsTable(rows: Row[], goals: readonly Goal[], title: string): string {
  const lines = [
    `${title}: the service's req/s over the ceiling's, medians of the same run.`,
    '',
    '| Service on | Measured against | Workload | Target | Ratio | |',
    '| --- | --- | --- | ---: | ---: | --- |',
  ];
  for (const goal of goals) {
    for (const workload of goal.workloads) {
      const [service, ceiling] = [rowOf(rows, goal.service, workload), rowOf(rows, goal.ceiling, workload)];
      const target = `≥ ${goal.atLeast.toFixed(2)}`;
      if (!service || !ceiling) {
        lines.push(`| ${goal.serviceOn} | ${goal.against} | ${workload} | ${target} | | not measured |`);
        continue;
      }
      const ratio = service.requestsPerSecond / ceiling.requestsPerSecond;
      const verdict = ratio >= goal.atLeast ? 'met' : '**missed**';
      const shown = shownRatio(ratio, goal.atLeast);
      lines.push(`| ${goal.serviceOn} | ${goal.against} | ${workload} | ${target} | ${shown} | ${verdict} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A paced run keeps its rate when it answered at least this share of it: below, its lag is not the rate's. */
const RATE_KEPT = 0.95;

/**
 * Each delivery lag target: medians over the repetitions of its paced runs (webhooks off's req/s, the rate, the rate
 * kept, the lag p50 and p99). Met when the p99 is within the bound, the rate was kept and every event sold arrived.
 */
export function lagGoalsTable(measurements: readonly Measurement[], goals: readonly LagGoal[]): string {
  const lines = [
    'Delivery lag: a fixed amount of stock −1 paced at a share of the req/s of the same service with webhooks off (saturated, same repetition), movement → receiver on loopback, medians of the repetitions.',
    '',
    '| Service on | Workload | Paced at | webhooks off req/s | rate | kept | lag p50 ms | lag p99 ms | Target | delivered / sold | check | |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
  ];
  for (const goal of goals) {
    const mine = measurements.filter((m) => m.target === goal.service && m.workload === goal.workload);
    const runs = mine.flatMap((m) => (m.lagRun ? [m.lagRun] : []));
    const head = `| ${goal.serviceOn} | ${goal.workload} | ${goal.share.toFixed(2)} × off |`;
    const target = `≤ ${goal.p99AtMostMs} ms`;
    if (runs.length === 0) {
      const why = [...new Set(mine.flatMap((m) => (m.lagRunSkipped ? [m.lagRunSkipped] : [])))].join('; ');
      lines.push(`${head} | | | | | ${target} | | ${why} | not measured |`);
      continue;
    }
    const of = (pick: (run: LagRun) => number) => median(runs.map(pick));
    const [off, rate, kept, p50, p99] = [
      of((r) => r.offRequestsPerSecond),
      of((r) => r.rate),
      of((r) => r.requestsPerSecond),
      of((r) => r.lagP50Ms),
      of((r) => r.lagP99Ms),
    ];
    const [delivered, sold] = [runs.reduce((n, r) => n + r.delivered, 0), runs.reduce((n, r) => n + r.sold, 0)];
    const missed = [
      !(p99 <= goal.p99AtMostMs) && 'lag',
      kept < RATE_KEPT * rate && 'rate not kept',
      delivered < sold && `${sold - delivered} not delivered`,
    ].filter(Boolean);
    const verdict = missed.length === 0 ? 'met' : `**missed** (${missed.join(', ')})`;
    const rates = [off, rate, kept].map((value) => Math.round(value));
    const checks = [...new Set(runs.map((r) => r.check))].join('; ');
    lines.push(
      `${head} ${rates.join(' | ')} | ${p50} | ${p99} | ${target} | ${delivered} / ${sold} | ${checks} | ${verdict} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Two decimals, or three rounded up where rounding would show a bound overrun (CPU above its limit) as kept. */
function shownCeiling(ratio: number, atMost: number): string {
  const short = ratio.toFixed(2);
  return ratio > atMost && Number(short) <= atMost ? (Math.ceil(ratio * 1000) / 1000).toFixed(3) : short;
}

/** A change held to a bound, on one workload: met when it keeps the throughput and adds no more CPU than allowed. */
function verdict(bound: Bound, throughput: number, cpu: number): string {
  const missed = [throughput < bound.throughputAtLeast && 'req/s', cpu > bound.cpuAtMost && 'CPU'].filter(Boolean);
  return missed.length === 0 ? 'met' : `**missed** (${missed.join(', ')})`;
}

/**
 * What each change bought, per workload: req/s and CPU per request before and after, from the same run, and their
 * ratios. A change held to a bound is met or missed on each of the bound's workloads (not measured, when the run left
 * one out); a change whose before or after did not run at all is left out.
 */
export function changesTable(rows: Row[], changes: readonly Change[]): string {
  const ran = (target: string) => rows.some((r) => r.target === target);
  const measured = changes.filter((c) => ran(c.before) && ran(c.after));
  const bounds = [...new Set(measured.flatMap((c) => (c.bound ? [c.bound] : [])))];
  const lines = [
    'Before and after, in the same run (medians): req/s, its ratio, and CPU per request (every thread of the server), its ratio.',
    ...bounds.map(
      (b) =>
        `${b.name[0]!.toUpperCase()}${b.name.slice(1)}: met where req/s keeps ≥ ${b.throughputAtLeast.toFixed(2)} of before and CPU per request stays ≤ ${b.cpuAtMost.toFixed(2)} of before.`,
    ),
    '',
    '| Workload | Change | req/s before | req/s after | ratio | CPU µs/req before | CPU µs/req after | CPU ratio | |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  const header = lines.length;
  const workloads = [...new Set([...rows.map((r) => r.workload), ...bounds.flatMap((b) => b.workloads)])];
  for (const workload of workloads) {
    for (const { change, before, after, bound } of measured) {
      const held = bound?.workloads.includes(workload) ? bound : undefined;
      const [was, is] = [rowOf(rows, before, workload), rowOf(rows, after, workload)];
      if (!was || !is) {
        if (held) lines.push(`| ${workload} | ${change} | | | | | | | not measured |`);
        continue;
      }
      const throughput = is.requestsPerSecond / was.requestsPerSecond;
      const cpu = is.cpuMicrosPerRequest / was.cpuMicrosPerRequest;
      const ratios = held
        ? [shownRatio(throughput, held.throughputAtLeast), shownCeiling(cpu, held.cpuAtMost)]
        : [throughput.toFixed(2), cpu.toFixed(2)];
      const rates = [was.requestsPerSecond, is.requestsPerSecond].map((value) => Math.round(value));
      const cpus = [was.cpuMicrosPerRequest, is.cpuMicrosPerRequest].map((value) => Math.round(value));
      const judged = held ? verdict(held, throughput, cpu) : '';
      const cells = [workload, change, ...rates, `**${ratios[0]}**`, ...cpus, `**${ratios[1]}**`, judged];
      lines.push(`| ${cells.join(' | ')} |`);
    }
  }
  return lines.length > header ? `${lines.join('\n')}\n` : '';
}

/** A grouped bar chart of the ratios, one group per workload, as a standalone SVG. */
export function chartSvg(rows: Row[]): string {
  const rated = rows.filter((r) => r.ratio !== undefined);
  const workloads = [...new Set(rated.map((r) => r.workload))];
  const series = [...new Set(rated.map((r) => r.target))];
  const colours = ['#2f6fdf', '#e07b1f', '#2a9d55', '#9b59b6', '#c0392b'];
  const width = 900;
  const height = 360;
  const left = 50;
  const bottom = 300;
  const top = 30;
  const groupWidth = (width - left - 20) / Math.max(1, workloads.length);
  const barWidth = (groupWidth - 20) / Math.max(1, series.length);
  const maxRatio = Math.max(1.2, ...rated.map((r) => r.ratio!));
  const y = (ratio: number) => bottom - ((bottom - top) * ratio) / maxRatio;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${left}" y="18" font-size="13" font-weight="bold">Throughput as a ratio of the raw baseline (same run, medians)</text>`,
    `<line x1="${left}" y1="${y(1)}" x2="${width - 10}" y2="${y(1)}" stroke="#999" stroke-dasharray="4 3"/>`,
    `<text x="${left - 6}" y="${y(1) + 4}" text-anchor="end">1.0</text>`,
    `<text x="${left - 6}" y="${bottom + 4}" text-anchor="end">0</text>`,
  ];
  workloads.forEach((workload, g) => {
    const x0 = left + g * groupWidth + 10;
    series.forEach((target, s) => {
      const row = rated.find((r) => r.workload === workload && r.target === target);
      if (!row) return;
      const x = x0 + s * barWidth;
      parts.push(
        `<rect x="${x}" y="${y(row.ratio!)}" width="${barWidth - 3}" height="${bottom - y(row.ratio!)}" fill="${colours[s % colours.length]}"/>`,
      );
      parts.push(
        `<text x="${x + (barWidth - 3) / 2}" y="${y(row.ratio!) - 3}" text-anchor="middle">${row.ratio!.toFixed(2)}</text>`,
      );
    });
    parts.push(`<text x="${x0 + (groupWidth - 20) / 2}" y="${bottom + 16}" text-anchor="middle">${workload}</text>`);
  });
  // Legend in two columns, so long labels never run into each other.
  series.forEach((target, s) => {
    const row = rated.find((r) => r.target === target)!;
    const x = left + (s % 2) * 420;
    const y0 = bottom + 26 + Math.floor(s / 2) * 16;
    parts.push(`<rect x="${x}" y="${y0}" width="10" height="10" fill="${colours[s % colours.length]}"/>`);
    parts.push(`<text x="${x + 14}" y="${y0 + 9}">${target} ÷ ${row.baseline}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
