import { randomUUID } from 'node:crypto';
import { writeContext } from '@stock/persistence-mikro-orm';

/**
 * The parameter a write of the service leaves for the ledger trigger, made by
 * the service's own function as its requests make it: a request id of its
 * own, the caller of a service whose tokens are off.
 */
export const movementContext = (kind: Parameters<typeof writeContext>[0]) =>
  writeContext(kind, { at: new Date(), requestId: randomUUID(), actor: 'anonymous' });
