import type autocannon from 'autocannon';

export interface WorkloadContext {
  /** Ids 1..products exist when the workload starts; 1 is the hot product. */
  readonly products: number;
}

export interface Workload {
  readonly name: string;
  readonly requests: (context: WorkloadContext) => autocannon.Request[];
}

const json = { 'content-type': 'application/json' };
const randomId = (products: number) => 2 + Math.floor(Math.random() * (products - 1));
let sequence = 0;
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
];

export const HOT_PRODUCT_STOCK = 1_000_000_000;
