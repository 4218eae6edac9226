import type autocannon from 'autocannon';

export interface WorkloadContext {
  /** Ids 1..products exist when the workload starts; 1 is the hot product. */
  readonly products: number;
}

export interface Workload {
  readonly name: string;
  readonly requests: (context: WorkloadContext) => autocannon.Request[];
  /**
   * Only the stock service answers it (the baselines serve the seed's five routes): run on the service targets,
   * this checkout's and an earlier one's, when `since` says that one has the routes it needs.
   */
  readonly serviceOnly?: boolean;
  /** Needs what stock by location added (locations): not run against a checkout from before it. */
  readonly needsLocations?: boolean;
  /** What the service must hold before the workload runs, made over HTTP (`headers` carry a token if needed). */
  readonly setup?: (base: string, headers: Record<string, string>) => Promise<void>;
}

/** The location the named-location workload adjusts at, with the hot product's stock there. */
export const BENCH_LOCATION = 'bench-east';

const json = { 'content-type': 'application/json' };
const randomId = (products: number) => 2 + Math.floor(Math.random() * (products - 1));
let sequence = 0;
let benchLocationId = 0;
/** What autocannon keeps between a connection's hold and its commit. */
interface HoldContext {
  reservation?: string;
}
const body = () =>
  JSON.stringify({
    name: `Bench product ${++sequence}`,
    description: 'Made under load',
    price: 12.34,
    quantityInStock: 5,
  });

export const WORKLOADS: readonly Workload[] = [
  {
    name: 'GET one',
    requests: ({ products }) => [
      { method: 'GET', setupRequest: (r) => ({ ...r, path: `/api/products/${randomId(products)}` }) },
    ],
  },
  {
    name: 'GET page of 50',
    requests: ({ products }) => [
      {
        method: 'GET',
        setupRequest: (r) => ({
          ...r,
          path: `/api/products?limit=50&after=${Math.floor(Math.random() * (products - 50))}`,
        }),
      },
    ],
  },
  {
    name: 'POST',
    requests: () => [
      { method: 'POST', path: '/api/products', headers: json, setupRequest: (r) => ({ ...r, body: body() }) },
    ],
  },
  {
    name: 'PUT',
    requests: ({ products }) => [
      {
        method: 'PUT',
        headers: json,
        setupRequest: (r) => ({ ...r, path: `/api/products/${randomId(products)}`, body: body() }),
      },
    ],
  },
  {
    name: 'stock -1 (hot row)',
    requests: () => [
      { method: 'POST', path: '/api/products/1/stock-adjustments', headers: json, body: JSON.stringify({ delta: -1 }) },
    ],
  },
  {
    // A checkout's two calls on the hot product (the only one with stock for a whole run): hold one unit, then commit
    // that hold (issue 24).
    name: 'hold and commit',
    serviceOnly: true,
    requests: () => [
      {
        method: 'POST',
        path: '/api/reservations',
        headers: json,
        setupRequest: (r) => ({
          ...r,
          body: JSON.stringify({
            reference: `bench-${process.pid}-${++sequence}`,
            lines: [{ productId: 1, quantity: 1 }],
          }),
        }),
        onResponse: (status, body, context) => {
          if (status === 201) (context as HoldContext).reservation = (JSON.parse(body) as { id: string }).id;
        },
      },
      {
        method: 'POST',
        setupRequest: (r, context) => ({
          ...r,
          path: `/api/reservations/${String((context as HoldContext).reservation)}/commit`,
        }),
      },
    ],
  },
  {
    // The hot product's stock at a second location: the same adjustment as above, by location (issue 24).
    name: 'stock -1 at a location',
    serviceOnly: true,
    needsLocations: true,
    setup: async (base, headers) => {
      const send = (path: string, body: unknown) =>
        fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, ...json }, body: JSON.stringify(body) });
      const created = await send('/api/locations', { code: BENCH_LOCATION, name: 'Bench east' });
      const location = created.ok
        ? ((await created.json()) as { id: number }).id
        : ((await (await fetch(`${base}/api/locations`, { headers })).json()) as { id: number; code: string }[]).find(
            (l) => l.code === BENCH_LOCATION,
          )!.id;
      benchLocationId = location;
      const stocked = await send('/api/products/1/stock-adjustments', {
        delta: HOT_PRODUCT_STOCK,
        locationId: location,
      });
      if (!stocked.ok) throw new Error(`Could not stock the bench location: ${stocked.status} ${await stocked.text()}`);
    },
    requests: () => [
      {
        method: 'POST',
        path: '/api/products/1/stock-adjustments',
        headers: json,
        setupRequest: (r) => ({ ...r, body: JSON.stringify({ delta: -1, locationId: benchLocationId }) }),
      },
    ],
  },
];

/** The five workloads every target serves, baselines included. */
export const SEED_WORKLOADS = WORKLOADS.filter((w) => !w.serviceOnly).map((w) => w.name);

export const HOT_PRODUCT_STOCK = 1_000_000_000;
