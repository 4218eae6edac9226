import { randomUUID } from 'node:crypto';
import { writeContext } from '@stock/persistence-mikro-orm';

/**
 * The parameter a write of the service leaves for the ledger trigger, made by
 * the service's own function as its requests make it: a request id of its
 * own, the caller of a service whose tokens are off. A level change names
 * its kind and location ({ kind, locationId }); `created` names neither
 * (the product's insert puts its stock at the default location).
 */
export const movementContext = (movement: Parameters<typeof writeContext>[0]) =>
  writeContext(movement, { at: new Date(), requestId: randomUUID(), actor: 'anonymous' });
