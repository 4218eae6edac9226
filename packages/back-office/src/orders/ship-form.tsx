import { type FormEvent, useState } from 'react';
import { callApi } from '../api';
import { ProblemMessage } from '../problem-message';
import { type Session, STOCK } from '../session';
import type { Location } from '../types';
import type { Order } from './order-types';
import { useAction } from './use-action';

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
  const { problem, busy, run } = useAction();
  const change = (index: number, field: 'locationId' | 'quantity', value: string) =>
    setRows((current) => current.map((row, at) => (at === index ? { ...row, [field]: value } : row)));

  const confirm = (event: FormEvent) => {
    event.preventDefault();
    const shipped = lines
      .map((line, index) => ({ productId: line.productId, ...rows[index]! }))
      .filter((row) => Number(row.quantity) > 0)
      .map((row) => ({
        productId: row.productId,
        quantity: Number(row.quantity),
        ...(row.locationId !== '' && { locationId: Number(row.locationId) }),
      }));
    void run(async (idempotencyKey) => {
      const answer = await callApi<{ id: string }>(session, STOCK, '/api/shipments', {
        method: 'POST',
        headers: { 'idempotency-key': idempotencyKey },
        body: { orderId: order.id, lines: shipped },
      });
      const units = shipped.reduce((sum, row) => sum + row.quantity, 0);
      onDone(`Shipment ${answer.body.id} recorded: ${units} unit${units === 1 ? '' : 's'}.`);
    });
  };

  return (
    <form aria-labelledby="ship-heading" className="panel" onSubmit={confirm}>
      <h2 id="ship-heading">Ship</h2>
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
      <div className="toolbar">
        <button type="submit" disabled={busy}>
          Confirm shipment
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <ProblemMessage problem={problem} />
    </form>
  );
}
