import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface Series {
  readonly labels: { readonly route: string; readonly method: string; readonly status: string };
  count: number;
  sum: number;
  /** Requests per bucket (not cumulative: made cumulative when scraped), the last one for +Inf. */
  readonly buckets: number[];
}

/** What prom-client's registry asks of a metric: its name, help, type and values when scraped. */
interface ScrapedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: 'sum';
    values: { labels: Record<string, string | number>; value: number; metricName?: string }[];
  }>;
}

/**
 * A service's Prometheus metrics, in a registry of its own (one per app, so
 * tests can run several): every request by route, method and status, the
 * process's defaults, and whatever the service adds to `registry`.
 */
export class HttpMetrics {
  readonly registry = new Registry();
  /** route → method → status → series: plain lookups, no label hashing, no string built per request. */
  private readonly series = new Map<string, Map<string, Map<number, Series>>>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.register({
      name: 'http_requests_total',
      help: 'HTTP requests by route, method and status',
      type: 'counter',
      values: (s) => [{ labels: s.labels, value: s.count }],
    });
    this.register({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route, method and status',
      type: 'histogram',
      values: (s) => {
        let cumulative = 0;
        const buckets = BUCKETS.map((le, i) => ({
          labels: { le, ...s.labels },
          value: (cumulative += s.buckets[i]!),
          metricName: 'http_request_duration_seconds_bucket',
        }));
        return [
          ...buckets,
          { labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: 'http_request_duration_seconds_bucket' },
          { labels: s.labels, value: s.sum, metricName: 'http_request_duration_seconds_sum' },
          { labels: s.labels, value: s.count, metricName: 'http_request_duration_seconds_count' },
        ];
      },
    });
  }

  /**
   * A gauge read at scrape time, one series per key `collect` answers (nothing
   * when it answers undefined). `collect` may query the database: when it
   * fails, the gauge is left out of that scrape, and readiness says why.
   */
  addGauge(
    name: string,
    help: string,
    labelName: string,
    collect: () => Promise<Readonly<Record<string, number>> | undefined> | Readonly<Record<string, number>> | undefined,
  ): void {
    new Gauge({
      name,
      help,
      labelNames: [labelName],
      registers: [this.registry],
      async collect() {
        this.reset();
        const values = await Promise.resolve()
          .then(collect)
          .catch(() => undefined);
        if (!values) return;
        for (const [label, value] of Object.entries(values)) this.set({ [labelName]: label }, value);
      },
    });
  }

  /**
   * Counts a finished request and records its duration. The route label is the
   * router's pattern, never the raw path, so the series stay bounded.
   */
  record(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (!byMethod) this.series.set(route, (byMethod = new Map<string, Map<number, Series>>()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map<number, Series>()));
    let series = byStatus.get(status);
    if (!series)
      byStatus.set(
        status,
        (series = {
          labels: { route, method, status: String(status) },
          count: 0,
          sum: 0,
          buckets: new Array<number>(BUCKETS.length).fill(0),
        }),
      );
    series.count += 1;
    series.sum += seconds;
    // A loop rather than findIndex: its callback would be a closure over `seconds`, made per request.
    for (let bucket = 0; bucket < BUCKETS.length; bucket++) {
      if (seconds <= BUCKETS[bucket]!) {
        series.buckets[bucket]! += 1;
        break;
      }
    }
  }

  private register({
    name,
    help,
    type,
    values,
  }: {
    name: string;
    help: string;
    type: 'counter' | 'histogram';
    values: (series: Series) => { labels: Record<string, string | number>; value: number; metricName?: string }[];
  }): void {
    const all = () =>
      [...this.series.values()].flatMap((byMethod) =>
        [...byMethod.values()].flatMap((byStatus) => [...byStatus.values()]),
      );
    const metric: ScrapedMetric = {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: all().flatMap(values) }),
    };
    this.registry.registerMetric(metric as never);
  }
}
