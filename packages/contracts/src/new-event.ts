import { randomUUID } from 'node:crypto';
import type { EventData, EventEnvelope, EventType } from './events';

/** A new event of `type`, with a fresh id, occurring at `now`. The caller's data is checked by the compiler, not here. */
export function newEvent<T extends EventType>(type: T, data: EventData<T>, now: Date = new Date()): EventEnvelope<T, EventData<T>> {
  return { id: randomUUID(), type, occurredAt: now.toISOString(), data };
}
