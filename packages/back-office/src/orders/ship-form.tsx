import { useState } from 'react';
import { type Session, STOCK } from '../session';
import type { Location } from '../types';
import { ActionForm, type PostOnce, unitsRecorded } from './action-form';
import type { Order } from './order-types';

interface Props {
  readonly session: Session;
  readonly order: Order;
  readonly locations: readonly Location[];
  readonly onDone: (message: string) => void;
  readonly onClose: () => void;
}

/** Where stock holds a line's units: its first allocation, which is where a shipment naming none starts too. */
const heldAt = (line: Order['lines'][number]) => String(line.allocations[0]?.locationId ?? '');

/** Ships units of the order's lines not shipped yet, each from a location; lines left at 0 are not shipped. */
export function ShipForm({ session, order, locations, onDone, onClose }: Props) {
  const lines = order.lines.filter((line) => line.shippedQuantity < line.quantity);
  const [rows, setRows] = useState(() =>
    lines.map((line) => ({ locationId: heldAt(line), quantity: String(line.quantity - line.shippedQuantity) })),
  );
  const change = (index: number, field: 'locationId' | 'quantity', value: string) =>
    setRows((current) => current.map((row, at) => (at === index ? { ...row, [field]: value } : row)));

  const submit = async (post: PostOnce) => {
    const shipped = lines
      .map((line, index) => ({ productId: line.productId, ...rows[index]! }))
      .filter((row) => Number(row.quantity) > 0)
      .map((row) => ({
        productId: row.productId,
        quantity: Number(row.quantity),
        ...(row.locationId !== '' && { locationId: Number(row.locationId) }),
      }));
    const answer = await post<{ id: string }>(STOCK, '/api/shipments', { orderId: order.id, lines: shipped });
    return unitsRecorded('Shipment', answer.id, shipped);
  };

  return (
    <ActionForm
      session={session}
      title="Ship"
      headingId="ship-heading"
      confirm="Confirm shipment"
      submit={submit}
      onDone={onDone}
      onClose={onClose}
    >
      {lines.map((line, index) => (
        <fieldset key={line.productId} className="fields">
          <legend>
            {line.name} ({line.quantity - line.shippedQuantity} to ship)
          </legend>
          <label htmlFor={`ship-location-${index}`}>Location</label>
          <select
            id={`ship-location-${index}`}
            value={rows[index]!.locationId}
            onChange={(event) => change(index, 'locationId', event.target.value)}
          >
            <option value="">Where it is held</option>
            {locations.map((location) => (
              <option key={location.id} value={location.id}>
                {location.code}
              </option>
            ))}
          </select>
          <label htmlFor={`ship-quantity-${index}`}>Quantity</label>
          <input
            id={`ship-quantity-${index}`}
            type="number"
            inputMode="numeric"
            min={0}
            max={line.quantity - line.shippedQuantity}
            step={1}
            required
            value={rows[index]!.quantity}
            onChange={(event) => change(index, 'quantity', event.target.value)}
          />
        </fieldset>
      ))}
    </ActionForm>
  );
}
