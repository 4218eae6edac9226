import type { Reservation } from '@stock/domain';

/**
 * A reservation's line with where it is held: its allocations and its backordered units. A line read from a record
 * made before holds had locations has neither, and shows them empty.
 */
function lineJson(line: Reservation['lines'][number]) {
  const { productId, quantity, locationId } = line;
  const allocations = 'allocations' in line ? line.allocations.map((a) => ({ ...a })) : [];
  const backorderedQuantity = 'backorderedQuantity' in line ? line.backorderedQuantity : 0;
  return { productId, quantity, ...(locationId !== undefined && { locationId }), allocations, backorderedQuantity };
}

export function reservationJson({ id, reference, status, lines, expiresAt, createdAt, updatedAt }: Reservation) {
  const shown = lines.map(lineJson);
  return {
    id,
    reference,
    status,
    lines: shown,
    backorderedQuantity: shown.reduce((sum, line) => sum + line.backorderedQuantity, 0),
    expiresAt: expiresAt.toISOString(),
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}
