import { type EventEnvelope, newEvent, type StockLevelChanged } from '@commerce/contracts';
import {
  type AppendedMovement,
  type LevelQuantities,
  levelAvailable,
  type Reservation,
  type Settlement,
  type StockMovement,
} from '@stock/domain';
import { createHash } from 'node:crypto';

/**
 * The namespace of stock.level.changed ids: a fixed UUID, so the id of a movement's event is the same in every
 * process, today and on a replay rebuilt from the ledger years on. Never change it.
 */
const LEVEL_CHANGED_NAMESPACE = '6b1f3c2e-9d4a-4f1b-8c7e-2a5d0e9f3b61';

/** Namespaces' bytes, each read once: every stock movement names one with webhooks on. */
const namespaceBytes = new Map<string, Buffer>();

/** RFC 9562's name-based UUID (version 5: SHA-1 of the namespace's bytes and the name). */
export function nameBasedUuid(namespace: string, name: string): string {
  let bytes = namespaceBytes.get(namespace);
  if (!bytes) namespaceBytes.set(namespace, (bytes = Buffer.from(namespace.replace(/-/g, ''), 'hex')));
  const hash = createHash('sha1').update(bytes).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A level's quantities on hand as the ledger rebuilds them (incoming is not in it). */
type LevelState = Omit<LevelQuantities, 'incoming'>;

/** The id of the stock.level.changed event of ledger movement `movementId`: derived from it alone. */
export function levelChangedEventId(movementId: number): string {
  return nameBasedUuid(LEVEL_CHANGED_NAMESPACE, `stock-movement:${movementId}`);
}

/** A movement as stock.level.changed tells it, with the product's SKU (none until products have one: null). */
export function levelChangedEvent(
  productId: number,
  sku: string | null,
  movement: AppendedMovement,
): EventEnvelope<'stock.level.changed', StockLevelChanged> {
  return {
    id: levelChangedEventId(movement.id),
    type: 'stock.level.changed',
    occurredAt: movement.at.toISOString(),
    data: {
      productId,
      sku,
      locationId: movement.locationId,
      onHand: movement.onHand,
      reserved: movement.reserved,
      // v1's shape: what is set aside beside reserved (committed, quality control, damaged) is not available.
      available: levelAvailable({ ...movement, incoming: 0 }),
      movementId: movement.id,
      sequence: movement.sequence,
    },
  };
}

/**
 * The level events a product's ledger holds, rebuilt from its movements in ledger order from its first one (each
 * location's level after a movement is the sum of its deltas so far: the ledger's invariant), keeping those from
 * `sinceSequence` on. The same ids, data and times as when they were first written.
 */
export function levelChangedFromLedger(
  productId: number,
  sku: string | null,
  movements: readonly StockMovement[],
  sinceSequence: number,
): EventEnvelope<'stock.level.changed', StockLevelChanged>[] {
  const levels = new Map<number, LevelState>();
  const events: EventEnvelope<'stock.level.changed', StockLevelChanged>[] = [];
  for (const movement of movements) {
    const before = levels.get(movement.locationId) ?? {
      onHand: 0,
      reserved: 0,
      committed: 0,
      qualityControl: 0,
      damaged: 0,
    };
    const after = {
      onHand: before.onHand + movement.quantityDelta,
      reserved: before.reserved + movement.reservedDelta,
      committed: before.committed + movement.committedDelta,
      qualityControl: before.qualityControl + movement.qualityControlDelta,
      damaged: before.damaged + movement.damagedDelta,
    };
    levels.set(movement.locationId, after);
    if (movement.sequence >= sinceSequence) events.push(levelChangedEvent(productId, sku, { ...movement, ...after }));
  }
  return events;
}

/** stock.reservation.held: a hold just made, by an order or an API caller, with where its lines are held. */
export function reservationHeldEvent(reservation: Reservation, at: Date) {
  return newEvent(
    'stock.reservation.held',
    {
      reservationId: reservation.id,
      reference: reservation.reference,
      origin: reservation.origin,
      owner: reservation.owner ?? null,
      lines: reservation.lines.map((line) => ({
        productId: line.productId,
        quantity: line.quantity,
        allocations:
          'allocations' in line ? line.allocations.map(({ locationId, quantity }) => ({ locationId, quantity })) : [],
        backorderedQuantity: 'backorderedQuantity' in line ? line.backorderedQuantity : 0,
      })),
      expiresAt: reservation.expiresAt.toISOString(),
    },
    at,
  );
}

/** stock.reservation.ended: a hold committed, released or expired. */
export function reservationEndedEvent(reservation: Reservation, status: Settlement, at: Date) {
  return newEvent(
    'stock.reservation.ended',
    { reservationId: reservation.id, reference: reservation.reference, origin: reservation.origin, status },
    at,
  );
}
