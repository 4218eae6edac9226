import { LINE_MAX_QUANTITY, ORDER_MAX_LINES as MAX_LINES } from '@commerce/shared-kernel';
import { INT32_MAX } from '@platform/kernel';
import * as t from 'io-ts';
import { DateTime, exactObject, integer, list, text, Uuid } from './codecs';

const ProductId = integer('ProductId', 1, INT32_MAX);
const Quantity = integer('Quantity', 1, LINE_MAX_QUANTITY);
/** A product's available quantity: below 0 while backordered holds wait for stock. */
const Available = integer('Available', -INT32_MAX, INT32_MAX);
const Threshold = integer('Threshold', 1, INT32_MAX);

const OrderLine = exactObject('OrderLine', { productId: ProductId, quantity: Quantity });
/** Where stock holds some of a line's units: the units of one line, held at one location. */
const Allocation = exactObject('Allocation', {
  locationId: integer('LocationId', 1, INT32_MAX),
  quantity: Quantity,
});
/**
 * A line stock holds, and where: one allocation per location it drew from; together they are the line's quantity,
 * so a line has at most as many as it has units.
 */
const HeldLine = exactObject('HeldLine', {
  productId: ProductId,
  quantity: Quantity,
  allocations: list(Allocation, 1, LINE_MAX_QUANTITY),
});
const Shortage = exactObject('Shortage', {
  productId: ProductId,
  // Lines for the same product are summed, so a request can exceed one line's limit.
  requested: integer('Requested', 1, INT32_MAX),
  available: integer('Available', 0, INT32_MAX),
});

const LocationId = integer('LocationId', 1, INT32_MAX);
const Units = integer('Units', 0, INT32_MAX);
/** A ledger movement's id or its place in its product's ledger: bigints in the database, safe integers in JSON. */
const LedgerNumber = integer('LedgerNumber', 1, Number.MAX_SAFE_INTEGER);
/** A hold's line as webhook receivers see it: where its units are held, and how many wait for stock. */
const HoldLine = exactObject('HoldLine', {
  productId: ProductId,
  quantity: Quantity,
  // A line wholly backordered is held nowhere yet.
  allocations: list(Allocation, 0, LINE_MAX_QUANTITY),
  backorderedQuantity: integer('BackorderedQuantity', 0, LINE_MAX_QUANTITY),
});
const Origin = t.keyof({ api: null, order: null }, 'Origin');
const Reference = text('Reference', 1, 200);

/** Units of an order's product that left one location in a shipment, or came back to it in a return. */
const ShipmentLine = exactObject('ShipmentLine', { productId: ProductId, locationId: LocationId, quantity: Quantity });
/** What became of returned units: back on sale, set aside for inspection, set aside as damaged, or never came back. */
const Disposition = t.keyof({ restock: null, 'quality-control': null, damaged: null, missing: null }, 'Disposition');
const ReturnLine = exactObject('ReturnLine', {
  productId: ProductId,
  locationId: LocationId,
  quantity: Quantity,
  disposition: Disposition,
});
/**
 * A shipment or a return has one line per product and location: an order's lines (ORDER_MAX_LINES) spread over
 * locations give at most this many.
 */
export const FULFILMENT_MAX_LINES = 1000;
const Carrier = t.union([text('Carrier', 1, 100), t.null]);
const TrackingNumber = t.union([text('TrackingNumber', 1, 100), t.null]);

/** Why stock refused to hold an order's lines. */
const RejectionReason = t.keyof(
  { 'insufficient-stock': null, 'unknown-products': null, 'order-cancelled': null },
  'RejectionReason',
);

interface EventContract {
  readonly version: number;
  /** The service that publishes it, and those whose queues are bound to it (docs/asyncapi.yaml says the same). */
  readonly publisher: string;
  readonly consumers: readonly string[];
  readonly data: t.Mixed;
}

const SALES = 'sales-service';
const STOCK = 'stock-service';

/**
 * Every event the services exchange, by type (the routing key), with the
 * version of its data. Decoding is exact, so any change to a payload, even an
 * added field, is a new version: it is published under a new type
 * (`<type>.v2`) beside the old one until every consumer reads the new one.
 * docs/asyncapi.yaml describes the same events; a test holds the two together.
 */
export const EVENTS = {
  'sales.order.placed': {
    version: 1,
    publisher: SALES,
    consumers: [STOCK],
    data: exactObject('OrderPlaced', { orderId: Uuid, lines: list(OrderLine, 1, MAX_LINES) }),
  },
  'sales.order.cancelled': {
    version: 1,
    publisher: SALES,
    consumers: [STOCK],
    data: exactObject('OrderCancelled', { orderId: Uuid }),
  },
  'sales.order.paid': {
    version: 1,
    publisher: SALES,
    consumers: [STOCK],
    data: exactObject('OrderPaid', { orderId: Uuid }),
  },
  // Published beside v2 for one release, for a sales instance that does not read v2 yet (a rolling upgrade). Sales
  // stays bound to it for that release: the relay publishes with `mandatory`, so an event no queue is bound to would
  // wait in stock's outbox for ever. The release that stops publishing it drops sales' binding (and unbinds it).
  'stock.reservation.confirmed': {
    version: 1,
    publisher: STOCK,
    consumers: [SALES],
    data: exactObject('ReservationConfirmed', { orderId: Uuid, reservationId: Uuid, expiresAt: DateTime }),
  },
  'stock.reservation.confirmed.v2': {
    version: 2,
    publisher: STOCK,
    consumers: [SALES],
    data: exactObject('ReservationConfirmedV2', {
      orderId: Uuid,
      reservationId: Uuid,
      expiresAt: DateTime,
      lines: list(HeldLine, 1, MAX_LINES),
    }),
  },
  'stock.reservation.rejected': {
    version: 1,
    publisher: STOCK,
    consumers: [SALES],
    data: exactObject('ReservationRejected', {
      orderId: Uuid,
      reason: RejectionReason,
      shortages: list(Shortage, 0, MAX_LINES),
    }),
  },
  'stock.reservation.released': {
    version: 1,
    publisher: STOCK,
    consumers: [SALES],
    data: exactObject('ReservationReleased', { orderId: Uuid, reservationId: Uuid }),
  },
  'stock.reservation.committed': {
    version: 1,
    publisher: STOCK,
    consumers: [SALES],
    data: exactObject('ReservationCommitted', { orderId: Uuid, reservationId: Uuid }),
  },
  'stock.reservation.commit_failed': {
    version: 1,
    publisher: STOCK,
    consumers: [SALES],
    data: exactObject('ReservationCommitFailed', { orderId: Uuid, reason: text('Reason', 1, 500) }),
  },
  'stock.reservation.expired': {
    version: 1,
    publisher: STOCK,
    consumers: [SALES],
    data: exactObject('ReservationExpired', { orderId: Uuid, reservationId: Uuid }),
  },
  // An order's committed units left the warehouse: sales counts each line's shippedQuantity. Webhooks take it too.
  'stock.shipment.created': {
    version: 1,
    publisher: STOCK,
    consumers: [SALES],
    data: exactObject('ShipmentCreated', {
      shipmentId: Uuid,
      orderId: Uuid,
      lines: list(ShipmentLine, 1, FULFILMENT_MAX_LINES),
      carrier: Carrier,
      trackingNumber: TrackingNumber,
    }),
  },
  // Shipped units of an order came back (or were declared missing): sales counts each line's returnedQuantity.
  'stock.return.received': {
    version: 1,
    publisher: STOCK,
    consumers: [SALES],
    data: exactObject('ReturnReceived', {
      returnId: Uuid,
      orderId: Uuid,
      lines: list(ReturnLine, 1, FULFILMENT_MAX_LINES),
      reason: t.union([text('Reason', 1, 500), t.null]),
    }),
  },
  // Published for whoever listens (webhooks, a merchant's tools); no service of ours consumes them.
  'stock.level.low': {
    version: 1,
    publisher: STOCK,
    consumers: [],
    data: exactObject('StockLevelLow', { productId: ProductId, available: Available, threshold: Threshold }),
  },
  'stock.level.restored': {
    version: 1,
    publisher: STOCK,
    consumers: [],
    data: exactObject('StockLevelRestored', { productId: ProductId, available: Available, threshold: Threshold }),
  },
  // Written only with WEBHOOKS=on: one per ledger movement, its id derived from the movement's, so a replay rebuilt
  // from the ledger carries the same webhook-id.
  'stock.level.changed': {
    version: 1,
    publisher: STOCK,
    consumers: [],
    data: exactObject('StockLevelChanged', {
      productId: ProductId,
      sku: t.union([text('Sku', 1, 100), t.null]),
      locationId: LocationId,
      onHand: Units,
      reserved: Units,
      available: Units,
      movementId: LedgerNumber,
      sequence: LedgerNumber,
    }),
  },
  // Written only with WEBHOOKS=on, for every hold (an order's or an API caller's) and every settlement of one.
  'stock.reservation.held': {
    version: 1,
    publisher: STOCK,
    consumers: [],
    data: exactObject('ReservationHeld', {
      reservationId: Uuid,
      reference: Reference,
      origin: Origin,
      owner: t.union([text('Owner', 1, 1000), t.null]),
      lines: list(HoldLine, 1, MAX_LINES),
      expiresAt: DateTime,
    }),
  },
  'stock.reservation.ended': {
    version: 1,
    publisher: STOCK,
    consumers: [],
    data: exactObject('ReservationEnded', {
      reservationId: Uuid,
      reference: Reference,
      origin: Origin,
      status: t.keyof({ committed: null, released: null, expired: null }, 'EndStatus'),
    }),
  },
} as const satisfies Record<string, EventContract>;

export type EventType = keyof typeof EVENTS;

export const EVENT_TYPES = Object.keys(EVENTS) as EventType[];

export type EventData<T extends EventType> = t.TypeOf<(typeof EVENTS)[T]['data']>;

/** Stock's word that it holds an order's lines, and at which locations (`stock.reservation.confirmed.v2`). */
export type ReservationConfirmedV2 = EventData<'stock.reservation.confirmed.v2'>;

/** Some of a line's units, held at one location. */
export type LocationAllocation = ReservationConfirmedV2['lines'][number]['allocations'][number];

/** An order's units that left the warehouse (`stock.shipment.created`). */
export type ShipmentCreated = EventData<'stock.shipment.created'>;

/** An order's shipped units that came back, each with its disposition (`stock.return.received`). */
export type ReturnReceived = EventData<'stock.return.received'>;

/** One ledger movement as webhook receivers see it (`stock.level.changed`). */
export type StockLevelChanged = EventData<'stock.level.changed'>;

/** What travels on the broker: `messageId` is `id`, the routing key is `type`. */
export interface EventEnvelope<T extends string = string, D = unknown> {
  readonly id: string;
  readonly type: T;
  /** RFC 3339, when the change that caused the event committed (as its producer's clock saw it). */
  readonly occurredAt: string;
  readonly data: D;
}

/** One of the known events, narrowed by `type`. */
export type IntegrationEvent = { [T in EventType]: EventEnvelope<T, EventData<T>> }[EventType];

/** The event types a service's queue is bound to. */
export function eventTypesConsumedBy(service: string): EventType[] {
  return EVENT_TYPES.filter((type) => (EVENTS[type].consumers as readonly string[]).includes(service));
}

/**
 * Whether a service of ours consumes `type`, so the broker must route it to a queue: an event only outside listeners
 * take (webhooks, a merchant's tools) may find none.
 */
export function isConsumedByAService(type: string): boolean {
  return isEventType(type) && EVENTS[type].consumers.length > 0;
}

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENTS, type);
}
