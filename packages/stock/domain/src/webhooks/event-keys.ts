import type { OutboxEnvelope } from '@platform/kernel';

/**
 * Where an event stands among the events a receiver must see in order: its
 * ordering key, and its place under that key when the event numbers itself.
 */
export interface EventKeys {
  /**
   * Deliveries of one subscription under one key never overtake each other. `product:<productId>` when the event's
   * data has a productId, else `order:<orderId>`, else `reservation:<reservationId>`, else `event:<id>` (unordered).
   */
  readonly orderingKey: string;
  /** The data's `sequence` (rising by 1 per product for ledger events): what a replay starts from. */
  readonly sequence: number | null;
}

/** The members of an event's data, in order of preference, that name what it must stay in order with. */
const ORDERING_MEMBERS = [
  ['productId', 'product'],
  ['orderId', 'order'],
  ['reservationId', 'reservation'],
] as const;

function scalar(value: unknown): string | undefined {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? String(value) : undefined;
}

/**
 * Any event in the outbox names its ordering key and sequence by the members of its data alone, so an event type
 * added later (stock.level.changed) is delivered in order without a change here.
 */
export function eventKeysOf(envelope: Pick<OutboxEnvelope, 'id' | 'data'>): EventKeys {
  const data = (typeof envelope.data === 'object' && envelope.data !== null ? envelope.data : {}) as Record<
    string,
    unknown
  >;
  const sequence = Number.isSafeInteger(data.sequence) ? (data.sequence as number) : null;
  for (const [member, prefix] of ORDERING_MEMBERS) {
    const value = scalar(data[member]);
    if (value !== undefined) return { orderingKey: `${prefix}:${value}`, sequence };
  }
  return { orderingKey: `event:${envelope.id}`, sequence };
}

/** The ordering key replays by product use. */
export function productOrderingKey(productId: number | string): string {
  return `product:${productId}`;
}

/** Whether a subscription's event list takes `type`: `*` takes every type. */
export function subscribesTo(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/**
 * The Standard Webhooks message id of an event: derived from the event's id alone, so a retry and a replay from
 * stored data carry the id the first delivery had, and a receiver deduplicates on it.
 */
export function webhookIdOf(eventId: string): string {
  return `msg_${eventId}`;
}

/**
 * `rows` (in the order they were written) with the events that number themselves under one key put in their number
 * order, in the places that key's events took: two transactions of one product may write their events with times in
 * the other order than their sequences (the second waited for the first's lock after reading the clock), and
 * deliveries under a key go out in the order they were queued.
 */
export function inSequenceOrder<T>(rows: readonly T[], keysOf: (row: T) => EventKeys): T[] {
  const keyed = rows.map((row) => ({ row, ...keysOf(row) }));
  const byKey = new Map<string, typeof keyed>();
  for (const entry of keyed) {
    if (entry.sequence === null) continue;
    const group = byKey.get(entry.orderingKey);
    if (group) group.push(entry);
    else byKey.set(entry.orderingKey, [entry]);
  }
  for (const group of byKey.values()) group.sort((a, b) => a.sequence! - b.sequence!);
  const taken = new Map<string, number>();
  return keyed.map((entry) => {
    if (entry.sequence === null) return entry.row;
    const next = taken.get(entry.orderingKey) ?? 0;
    taken.set(entry.orderingKey, next + 1);
    return byKey.get(entry.orderingKey)![next]!.row;
  });
}
