import { timeOrderedId } from '@platform/kernel';
import type { EventData, EventEnvelope, EventType } from './events';

/**
 * A new event of `type`, with a fresh time-ordered id (events made in one process sort as they were made), occurring at
 * `now`. The caller's data is checked by the compiler, not here.
 */
export function newEvent<T extends EventType>(
  type: T,
  data: EventData<T>,
  now: Date = new Date(),
): EventEnvelope<T, EventData<T>> {
  return { id: timeOrderedId(now.getTime()), type, occurredAt: now.toISOString(), data };
}
