import type { EventType } from '../src';

const ORDER = '0b6f1d8e-6d3c-4f7a-9a51-3f0e2b6c9d41';
const RESERVATION = '7c2a4e90-1f3b-4c8d-8e6a-5b9d0c1f2a37';
const SHIPMENT = '3d9b2f41-8c6e-4a17-b0d2-6e4f1a8c5b93';
const RETURN = 'a41c7e28-5d90-4b36-8f1e-2c7b9d3e6a05';

/** One valid data object per event type. */
export const VALID_DATA: Record<EventType, Record<string, unknown>> = {
  'sales.order.placed': {
    orderId: ORDER,
    lines: [
      { productId: 1, quantity: 2 },
      { productId: 2147483647, quantity: 10000 },
    ],
  },
  'sales.order.cancelled': { orderId: ORDER },
  'sales.order.paid': { orderId: ORDER },
  'stock.reservation.confirmed': { orderId: ORDER, reservationId: RESERVATION, expiresAt: '2026-11-24T10:15:00.000Z' },
  'stock.reservation.confirmed.v2': {
    orderId: ORDER,
    reservationId: RESERVATION,
    expiresAt: '2026-11-24T10:15:00.000Z',
    lines: [
      {
        productId: 1,
        quantity: 30,
        allocations: [
          { locationId: 1, quantity: 10 },
          { locationId: 2147483647, quantity: 20 },
        ],
      },
      { productId: 2, quantity: 1, allocations: [{ locationId: 3, quantity: 1 }] },
    ],
  },
  'stock.reservation.rejected': {
    orderId: ORDER,
    reason: 'insufficient-stock',
    shortages: [{ productId: 3, requested: 20001, available: 0 }],
  },
  'stock.reservation.released': { orderId: ORDER, reservationId: RESERVATION },
  'stock.reservation.committed': { orderId: ORDER, reservationId: RESERVATION },
  'stock.reservation.commit_failed': { orderId: ORDER, reason: 'the reservation expired before the payment arrived' },
  'stock.reservation.expired': { orderId: ORDER, reservationId: RESERVATION },
  'stock.shipment.created': {
    shipmentId: SHIPMENT,
    orderId: ORDER,
    lines: [
      { productId: 1, locationId: 1, quantity: 2 },
      { productId: 1, locationId: 2, quantity: 10000 },
    ],
    carrier: 'DHL',
    trackingNumber: 'JD014600006281230123',
  },
  'stock.return.received': {
    returnId: RETURN,
    orderId: ORDER,
    lines: [
      { productId: 1, locationId: 1, quantity: 1, disposition: 'restock' },
      { productId: 1, locationId: 2, quantity: 2, disposition: 'quality-control' },
      { productId: 2, locationId: 2, quantity: 1, disposition: 'damaged' },
      { productId: 3, locationId: 1, quantity: 1, disposition: 'missing' },
    ],
    reason: 'wrong size',
  },
  'stock.level.low': { productId: 1, available: 4, threshold: 5 },
  'stock.level.restored': { productId: 2147483647, available: -2147483647, threshold: 2147483647 },
  'stock.level.changed': {
    productId: 1,
    sku: 'LAMP-1',
    locationId: 2,
    onHand: 10,
    reserved: 3,
    available: 7,
    movementId: 9007199254740991,
    sequence: 42,
  },
  'stock.reservation.held': {
    reservationId: RESERVATION,
    reference: 'cart-17',
    origin: 'api',
    owner: 'shop-a',
    lines: [
      { productId: 1, quantity: 5, allocations: [{ locationId: 1, quantity: 3 }], backorderedQuantity: 2 },
      { productId: 2, quantity: 1, allocations: [], backorderedQuantity: 1 },
    ],
    expiresAt: '2026-11-24T10:15:00.000Z',
  },
  'stock.reservation.ended': { reservationId: RESERVATION, reference: ORDER, origin: 'order', status: 'expired' },
};

/** Fields whose valid values include null. */
const NULLABLE = new Set(['sku', 'owner', 'carrier', 'trackingNumber']);
const nullable = (type: string, field: string) =>
  NULLABLE.has(field) || (type === 'stock.return.received' && field === 'reason');

export function envelope(
  type: string,
  data: unknown,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return { id: '5f0c7e1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b', type, occurredAt: '2026-11-24T10:00:00Z', data, ...overrides };
}

type Sample = { readonly label: string; readonly message: Record<string, unknown> };

const BAD_VALUES: readonly [string, unknown][] = [
  ['null', null],
  ['a boolean', true],
  ['a number', 7],
  ['an empty object', {}],
  ['an array', []],
];

/** Changes of a valid message that the contract must refuse; each says what it breaks. */
export function refusedSamples(type: EventType): Sample[] {
  const data = VALID_DATA[type];
  const samples: Sample[] = [
    { label: 'an unknown envelope property', message: envelope(type, data, { version: 1 }) },
    { label: 'an unknown data property', message: envelope(type, { ...data, note: 'x' }) },
    { label: 'no id', message: (({ id: _id, ...rest }) => rest)(envelope(type, data)) },
    { label: 'an id that is no UUID', message: envelope(type, data, { id: 'order-1' }) },
    { label: 'an orderId that is no UUID', message: envelope(type, { ...data, orderId: 'order-1' }) },
    { label: 'a urn: UUID', message: envelope(type, data, { id: 'urn:uuid:5f0c7e1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b' }) },
    { label: 'occurredAt without an offset', message: envelope(type, data, { occurredAt: '2026-11-24T10:00:00' }) },
    { label: 'occurredAt with a space for T', message: envelope(type, data, { occurredAt: '2026-11-24 10:00:00Z' }) },
    {
      label: 'occurredAt on a day that does not exist',
      message: envelope(type, data, { occurredAt: '2026-02-30T10:00:00Z' }),
    },
    { label: 'occurredAt as epoch milliseconds', message: envelope(type, data, { occurredAt: 1_795_000_000_000 }) },
    { label: 'data that is an array', message: envelope(type, [data]) },
    { label: 'no data', message: (({ data: _, ...rest }) => rest)(envelope(type, data)) },
  ];
  for (const field of Object.keys(data)) {
    samples.push({ label: `no ${field}`, message: envelope(type, { ...data, [field]: undefined }) });
    for (const [what, value] of BAD_VALUES) {
      // A rejection for a cancelled order names no shortages: [] is valid there.
      if (type === 'stock.reservation.rejected' && field === 'shortages' && Array.isArray(value)) continue;
      // Another integer may be valid where the field is a number: the bounds are tried below.
      if (typeof data[field] === 'number' && typeof value === 'number') continue;
      if (nullable(type, field) && value === null) continue;
      samples.push({ label: `${field} as ${what}`, message: envelope(type, { ...data, [field]: value }) });
    }
  }
  const lines = (items: unknown) => envelope(type, { ...data, lines: items });
  const shortages = (items: unknown) => envelope(type, { ...data, shortages: items });
  if (type === 'sales.order.placed') {
    samples.push(
      { label: 'no lines', message: lines([]) },
      {
        label: '101 lines',
        message: lines(Array.from({ length: 101 }, (_, i) => ({ productId: i + 1, quantity: 1 }))),
      },
      { label: 'a quantity of 0', message: lines([{ productId: 1, quantity: 0 }]) },
      { label: 'a quantity of 10001', message: lines([{ productId: 1, quantity: 10001 }]) },
      { label: 'a fractional quantity', message: lines([{ productId: 1, quantity: 1.5 }]) },
      { label: 'a quantity as a string', message: lines([{ productId: 1, quantity: '2' }]) },
      { label: 'a product id of 0', message: lines([{ productId: 0, quantity: 1 }]) },
      { label: 'a product id past int32', message: lines([{ productId: 2147483648, quantity: 1 }]) },
      { label: 'a line with an unknown property', message: lines([{ productId: 1, quantity: 1, price: 3 }]) },
      { label: 'a line without its quantity', message: lines([{ productId: 1 }]) },
    );
  }
  if (type === 'stock.reservation.rejected') {
    samples.push(
      { label: 'an unknown reason', message: envelope(type, { ...data, reason: 'out-of-stock' }) },
      { label: 'a negative availability', message: shortages([{ productId: 1, requested: 2, available: -1 }]) },
      { label: 'nothing requested', message: shortages([{ productId: 1, requested: 0, available: 0 }]) },
      {
        label: 'a shortage with an unknown property',
        message: shortages([{ productId: 1, requested: 2, available: 1, sku: 'x' }]),
      },
    );
  }
  if (type === 'stock.level.low' || type === 'stock.level.restored') {
    samples.push(
      { label: 'a threshold of 0', message: envelope(type, { ...data, threshold: 0 }) },
      { label: 'a fractional available', message: envelope(type, { ...data, available: 1.5 }) },
      { label: 'a product id of 0', message: envelope(type, { ...data, productId: 0 }) },
    );
  }
  if (type === 'stock.reservation.confirmed.v2') {
    const held = (allocations: unknown, extra: Record<string, unknown> = {}) =>
      lines([{ productId: 1, quantity: 2, allocations, ...extra }]);
    samples.push(
      { label: 'no lines', message: lines([]) },
      {
        label: '101 lines',
        message: lines(
          Array.from({ length: 101 }, (_, i) => ({
            productId: i + 1,
            quantity: 1,
            allocations: [{ locationId: 1, quantity: 1 }],
          })),
        ),
      },
      { label: 'a line without allocations', message: lines([{ productId: 1, quantity: 2 }]) },
      { label: 'a line with no allocation', message: held([]) },
      { label: 'a line with an unknown property', message: held([{ locationId: 1, quantity: 2 }], { sku: 'x' }) },
      { label: 'a line with a quantity of 0', message: lines([{ productId: 1, quantity: 0, allocations: [] }]) },
      { label: 'a location id of 0', message: held([{ locationId: 0, quantity: 2 }]) },
      { label: 'a location id past int32', message: held([{ locationId: 2147483648, quantity: 2 }]) },
      { label: 'a location id as a string', message: held([{ locationId: '1', quantity: 2 }]) },
      { label: 'an allocation of 0 units', message: held([{ locationId: 1, quantity: 0 }]) },
      { label: 'a fractional allocation', message: held([{ locationId: 1, quantity: 1.5 }]) },
      { label: 'an allocation without its location', message: held([{ quantity: 2 }]) },
      {
        label: 'an allocation with an unknown property',
        message: held([{ locationId: 1, quantity: 2, code: 'default' }]),
      },
    );
  }
  if (type === 'stock.reservation.confirmed' || type === 'stock.reservation.confirmed.v2') {
    samples.push({
      label: 'expiresAt at 24:00',
      message: envelope(type, { ...data, expiresAt: '2026-11-24T24:00:00Z' }),
    });
  }
  if (type === 'stock.level.changed')
    samples.push(
      { label: 'an empty sku', message: envelope(type, { ...data, sku: '' }) },
      { label: 'a negative available', message: envelope(type, { ...data, available: -1 }) },
      { label: 'a sequence of 0', message: envelope(type, { ...data, sequence: 0 }) },
      { label: 'a movement id past 2^53 - 1', message: envelope(type, { ...data, movementId: 2 ** 53 }) },
      { label: 'a location id of 0', message: envelope(type, { ...data, locationId: 0 }) },
    );
  if (type === 'stock.reservation.held')
    samples.push(
      { label: 'an unknown origin', message: envelope(type, { ...data, origin: 'pos' }) },
      { label: 'no lines', message: lines([]) },
      { label: 'a line without backorderedQuantity', message: lines([{ productId: 1, quantity: 1, allocations: [] }]) },
      {
        label: 'a negative backorderedQuantity',
        message: lines([{ productId: 1, quantity: 1, allocations: [], backorderedQuantity: -1 }]),
      },
    );
  if (type === 'stock.reservation.ended')
    samples.push(
      { label: 'a status that is no end', message: envelope(type, { ...data, status: 'held' }) },
      { label: 'an empty reference', message: envelope(type, { ...data, reference: '' }) },
    );
  if (type === 'stock.shipment.created' || type === 'stock.return.received') {
    const line = (data.lines as Record<string, unknown>[])[0]!;
    const withLine = (changes: Record<string, unknown>) =>
      envelope(type, { ...data, lines: [{ ...line, ...changes }] });
    samples.push(
      { label: 'no lines', message: envelope(type, { ...data, lines: [] }) },
      { label: 'a line of 0 units', message: withLine({ quantity: 0 }) },
      { label: 'a line without its location', message: withLine({ locationId: undefined }) },
    );
  }
  if (type === 'stock.return.received')
    samples.push({
      label: 'an unknown disposition',
      message: envelope(type, {
        ...data,
        lines: [{ ...(data.lines as Record<string, unknown>[])[0], disposition: 'lost' }],
      }),
    });
  if (type === 'stock.reservation.commit_failed') {
    samples.push(
      { label: 'an empty reason', message: envelope(type, { ...data, reason: '' }) },
      { label: 'a reason of 501 characters', message: envelope(type, { ...data, reason: 'x'.repeat(501) }) },
    );
  }
  return samples.map((sample) => ({
    ...sample,
    message: JSON.parse(JSON.stringify(sample.message)) as Record<string, unknown>,
  }));
}

/** Valid variants, beyond VALID_DATA itself. */
export function acceptedSamples(type: EventType): Sample[] {
  const data = VALID_DATA[type];
  const samples: Sample[] = [
    { label: 'the sample', message: envelope(type, data) },
    {
      label: 'an offset instead of Z and fractional seconds',
      message: envelope(type, data, { occurredAt: '2026-11-24T11:00:00.123456+01:00' }),
    },
    { label: 'an upper-case UUID', message: envelope(type, data, { id: '5F0C7E1A-2B3D-4E5F-8A9B-0C1D2E3F4A5B' }) },
    { label: 'a leap day', message: envelope(type, data, { occurredAt: '2028-02-29T23:59:59Z' }) },
  ];
  if (type === 'stock.level.changed')
    samples.push({ label: 'a product without a SKU', message: envelope(type, { ...data, sku: null }) });
  if (type === 'stock.reservation.held')
    samples.push({
      label: "an order's hold, with no owner",
      message: envelope(type, { ...data, origin: 'order', owner: null }),
    });
  if (type === 'sales.order.placed')
    samples.push({
      label: '100 lines',
      message: envelope(type, {
        ...data,
        lines: Array.from({ length: 100 }, (_, i) => ({ productId: i + 1, quantity: 1 })),
      }),
    });
  if (type === 'stock.reservation.confirmed.v2')
    samples.push({
      label: '100 lines, one of them split across two locations',
      message: envelope(type, {
        ...data,
        lines: Array.from({ length: 100 }, (_, i) => ({
          productId: i + 1,
          quantity: 10000,
          allocations:
            i === 0
              ? [
                  { locationId: 1, quantity: 1 },
                  { locationId: 2, quantity: 9999 },
                ]
              : [{ locationId: 1, quantity: 10000 }],
        })),
      }),
    });
  if (type === 'stock.reservation.rejected')
    samples.push({
      label: 'a tombstone: cancelled before placed, no shortages',
      message: envelope(type, { ...data, reason: 'order-cancelled', shortages: [] }),
    });
  if (type === 'stock.reservation.rejected')
    samples.push({
      label: 'two shortages',
      message: envelope(type, {
        ...data,
        shortages: [
          { productId: 1, requested: 5, available: 4 },
          { productId: 2, requested: 1, available: 0 },
        ],
      }),
    });
  return samples;
}
