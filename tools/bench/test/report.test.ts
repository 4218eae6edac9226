import { expect } from 'chai';
import { type Bound, type Goal, ISSUE_31_GOALS, ISSUE_36_GOALS, ISSUE_36_LAG_GOALS, type LagGoal } from '../src/goals';
import {
  addedCostTable,
  changesTable,
  chartSvg,
  goalsTable,
  type LagRun,
  lagGoalsTable,
  markdownTable,
  type Measurement,
  summarise,
} from '../src/report';
import { type Target, TARGETS } from '../src/targets';

const targets: Target[] = [
  { name: 'service', storage: 'memory', script: 'service.ts', baseline: 'raw' },
  { name: 'raw', storage: 'memory', script: 'raw-map.ts' },
];

const measured = (target: string, rep: number, requestsPerSecond: number, workload = 'GET one'): Measurement => ({
  target,
  workload,
  rep,
  requestsPerSecond,
  p50Ms: rep,
  p99Ms: 10 * rep,
  serverCpu: 0.5,
  cpuMicrosPerRequest: 1e6 / requestsPerSecond,
  check: 'ok',
});

describe('the benchmark report', () => {
  const rows = summarise(
    [
      measured('service', 1, 900),
      measured('raw', 1, 1000),
      measured('service', 2, 300),
      measured('raw', 2, 2000),
      measured('service', 3, 600),
      measured('raw', 3, 1500),
    ],
    targets,
  );

  it('takes the median of the repetitions, and the ratio of the medians to the baseline of the same run', () => {
    const service = rows.find((row) => row.target === 'service')!;
    expect(service.requestsPerSecond).to.equal(600);
    expect(service.p50Ms).to.equal(2);
    expect(service.p99Ms).to.equal(20);
    expect(service.ratio).to.equal(600 / 1500);
    expect(service.cpuMicrosPerRequest).to.equal(1e6 / 600);
    expect(rows.find((row) => row.target === 'raw')!.ratio).to.equal(undefined);
  });

  it('prints a row per target and workload, CPU per request beside req/s, ratios against their baseline', () => {
    const table = markdownTable(rows, {
      date: '2026-11-22T08:00:00.000Z',
      node: 'v20',
      reps: 3,
      seconds: 5,
      connections: 32,
      rate: 400,
      pool: 10,
      products: 1000,
    });
    expect(table).to.contain('| GET one | service | 600 | 1667 | **0.40** of raw | 2 | 20 | 0.50 | ok |');
    expect(table).to.contain('| GET one | raw | 1500 | 667 | baseline |');
  });

  describe("an issue's targets", () => {
    const pair = { service: 'service', ceiling: 'raw' };
    const against = (name: string, atLeast: number) => ({ serviceOn: 'memory', against: name, atLeast, ...pair });
    const goals: Goal[] = [
      { ...against('the raw one', 0.4), workloads: ['GET one', 'POST', 'PUT'] },
      { ...against('the raw one, higher', 0.9), workloads: ['GET one'] },
    ];
    const measurements = [
      ...[measured('service', 1, 600), measured('raw', 1, 1500)],
      ...[measured('service', 1, 899, 'POST'), measured('raw', 1, 2250, 'POST')],
      measured('service', 1, 100, 'PUT'),
    ];
    const table = goalsTable(summarise(measurements, targets), goals, 'Issue 99');

    it('prints each line per workload with the ratio of the medians, met when it reaches the target', () => {
      expect(table).to.contain('| memory | the raw one | GET one | ≥ 0.40 | 0.40 | met |');
      expect(table).to.contain('| memory | the raw one, higher | GET one | ≥ 0.90 | 0.40 | **missed** |');
    });

    it('shows a third decimal, cut short, where rounding would show a missed target as reached', () => {
      expect(table).to.contain('| memory | the raw one | POST | ≥ 0.40 | 0.399 | **missed** |');
    });

    it('names a line it could not measure (a target filtered out) as not measured, never as met', () => {
      expect(table).to.contain('| memory | the raw one | PUT | ≥ 0.40 | | not measured |');
    });
  });

  it('prints each change before and after, with CPU per request, and nothing when no change was measured', () => {
    const measurements = [measured('service', 1, 600), measured('service @ old', 1, 400)];
    const old: Target = { name: 'service @ old', storage: 'memory', script: 'service-at.ts', baseline: 'raw' };
    const summary = summarise(measurements, [...targets, old]);
    const table = changesTable(summary, [{ change: 'old → now', before: 'service @ old', after: 'service' }]);
    expect(table).to.contain('| GET one | old → now | 400 | 600 | **1.50** | 2500 | 1667 |');
    expect(changesTable(summary, [{ change: 'never run', before: 'service @ never', after: 'service' }])).to.equal('');
  });

  describe('a change held to a bound (a regression check)', () => {
    const bound: Bound = {
      name: 'the check',
      workloads: ['GET one', 'POST', 'PUT'],
      throughputAtLeast: 0.95,
      cpuAtMost: 1.05,
    };
    const old: Target = { name: 'service @ old', storage: 'memory', script: 'service-at.ts' };
    const at = (target: string, workload: string, requestsPerSecond: number, cpuMicrosPerRequest: number) => ({
      ...measured(target, 1, requestsPerSecond, workload),
      cpuMicrosPerRequest,
    });
    const summary = summarise(
      [
        ...[at('service @ old', 'GET one', 1000, 100), at('service', 'GET one', 960, 104)],
        ...[at('service @ old', 'POST', 1000, 100), at('service', 'POST', 949.6, 100)],
        ...[at('service @ old', 'PUT', 1000, 100), at('service', 'PUT', 1000, 105.04)],
        at('service @ old', 'stock -1 (hot row)', 1000, 100),
      ],
      [...targets, old],
    );
    const table = changesTable(summary, [{ change: 'old → now', before: 'service @ old', after: 'service', bound }]);

    it('states the bound, and each workload met when it keeps the throughput and adds no more CPU than allowed', () => {
      expect(table).to.contain(
        'The check: met where req/s keeps ≥ 0.95 of before and CPU per request stays ≤ 1.05 of before.',
      );
      expect(table).to.contain('| GET one | old → now | 1000 | 960 | **0.96** | 100 | 104 | **1.04** | met |');
    });

    it('names what a missed workload missed, with a third decimal where rounding would show it kept', () => {
      expect(table).to.contain(
        '| POST | old → now | 1000 | 950 | **0.949** | 100 | 100 | **1.00** | **missed** (req/s) |',
      );
      expect(table).to.contain(
        '| PUT | old → now | 1000 | 1000 | **1.00** | 100 | 105 | **1.051** | **missed** (CPU) |',
      );
    });

    it("names a bound's workload the run left out as not measured, and judges none outside the bound", () => {
      expect(table).to.not.contain('| stock -1 (hot row) |');
      const unmeasured = summarise(
        [at('service @ old', 'GET one', 1000, 100), at('service', 'GET one', 1000, 100)],
        [...targets, old],
      );
      const partial = changesTable(unmeasured, [
        { change: 'old → now', before: 'service @ old', after: 'service', bound },
      ]);
      expect(partial).to.contain('| PUT | old → now | | | | | | | not measured |');
    });
  });

  it("issue 31's goals hold the services' stock −1 to ledgered baselines that run it, on their own store", () => {
    for (const goal of ISSUE_31_GOALS) {
      const [service, ceiling] = [goal.service, goal.ceiling].map((name) => TARGETS.find((t) => t.name === name)!);
      expect(ceiling, goal.ceiling).to.include({ storage: service!.storage });
      expect(ceiling!.workloads).to.include.members(goal.workloads);
    }
  });

  it("issue 36's goals name targets the bench runs, each held against the same store", () => {
    const named = (name: string) => TARGETS.find((t) => t.name === name)!;
    for (const goal of ISSUE_36_GOALS) {
      const [service, ceiling] = [named(goal.service), named(goal.ceiling)];
      expect(service, goal.service).to.not.equal(undefined);
      expect(ceiling, goal.ceiling).to.include({ storage: service.storage });
    }
    const traced = ISSUE_36_GOALS.filter((g) => g.service.includes('tracing')).map((g) => named(g.service).storage);
    expect(traced).to.have.members(['memory', 'sqlite', 'postgresql']);
    for (const goal of ISSUE_36_LAG_GOALS) {
      const service = named(goal.service);
      expect(service, goal.service).to.include({ webhookLag: true });
      expect(service.workloads).to.include(goal.workload);
      expect(ISSUE_36_GOALS.some((g) => g.service === goal.service && g.ceiling === service.baseline)).to.equal(true);
    }
  });

  describe('a delivery lag target', () => {
    const goal: LagGoal = { serviceOn: 'SQLite', service: 'on', workload: 'stock', share: 0.8, p99AtMostMs: 2000 };
    const run = (rep: number, lag: Partial<LagRun> = {}): Measurement => ({
      ...measured('on', rep, 900, 'stock'),
      lagRun: {
        offRequestsPerSecond: 1000,
        rate: 800,
        requestsPerSecond: 790,
        sold: 1600,
        delivered: 1600,
        lagP50Ms: 10 * rep,
        lagP99Ms: 500 * rep,
        check: 'ok (1600 sold = stock consumed)',
        ...lag,
      },
    });

    it('takes the medians of the repetitions, met when the p99 is within the bound at the rate asked', () => {
      expect(lagGoalsTable([run(1), run(2), run(3)], [goal])).to.contain(
        '| SQLite | stock | 0.80 × off | 1000 | 800 | 790 | 20 | 1000 | ≤ 2000 ms | 4800 / 4800 | ok (1600 sold = stock consumed) | met |',
      );
    });

    it('is missed on a p99 above the bound, a rate not kept, or an event sold and never delivered', () => {
      const table = lagGoalsTable([run(5, { requestsPerSecond: 700, delivered: 1599 })], [goal]);
      expect(table).to.contain('| **missed** (lag, rate not kept, 1 not delivered) |');
    });

    it('is not measured, and says why, when webhooks off did not run in the same repetition', () => {
      const skipped = { ...measured('on', 1, 900, 'stock'), lagRunSkipped: 'off not measured in repetition 1' };
      expect(lagGoalsTable([skipped], [goal])).to.contain(
        '| SQLite | stock | 0.80 × off | | | | | | ≤ 2000 ms | | off not measured in repetition 1 | not measured |',
      );
      expect(lagGoalsTable([], [goal])).to.contain('| not measured |');
    });
  });

  it('draws one bar per measured ratio, labelled with its value', () => {
    const svg = chartSvg(rows);
    expect(svg.match(/<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="[\d.]+" fill=/g)).to.have.length(2); // the bar and its legend key
    expect(svg).to.contain('>0.40</text>');
    expect(svg).to.contain('service ÷ raw');
  });

  it('reports what a layer adds: its throughput ratio and the p50 it adds at a fixed rate, from medians of the same run', () => {
    const layered: Target[] = [
      { name: 'gateway', storage: 'memory', script: 'gateway.ts', baseline: 'service', addsLatency: true },
      { name: 'service', storage: 'memory', script: 'service.ts', baseline: 'raw' },
      { name: 'raw', storage: 'memory', script: 'raw-map.ts' },
    ];
    const timed = (target: string, rep: number, requestsPerSecond: number, fixedRateP50Ms: number): Measurement => ({
      ...measured(target, rep, requestsPerSecond),
      fixedRateP50Ms,
    });
    const summary = summarise(
      [
        timed('gateway', 1, 400, 1.9),
        timed('service', 1, 1000, 1.2),
        timed('gateway', 2, 500, 2.5),
        timed('service', 2, 1100, 1.0),
        timed('gateway', 3, 300, 2.2),
        timed('service', 3, 900, 1.1),
        measured('raw', 1, 2000),
      ],
      layered,
    );
    const gateway = summary.find((row) => row.target === 'gateway')!;
    expect(gateway.ratio).to.equal(400 / 1000);
    expect(gateway.addedP50Ms).to.be.closeTo(2.2 - 1.1, 1e-9);
    expect(summary.find((row) => row.target === 'service')!.addedP50Ms, 'not a layer').to.equal(undefined);
    const table = addedCostTable(summary, { rate: 400 });
    expect(table).to.contain('| GET one | gateway | service | **0.40** | 2.200 | 1.100 | **1.100** |');
    expect(table.match(/^\| GET one/gm)).to.have.length(1);
    expect(addedCostTable(rows, { rate: 400 }), 'no layer measured: no table').to.equal('');
  });
});
