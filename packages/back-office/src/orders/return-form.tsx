import { useState } from 'react';
import { type Session, STOCK } from '../session';
import type { Location } from '../types';
import { ActionForm, type PostOnce, unitsRecorded } from './action-form';
import { DISPOSITIONS, type Disposition, type Order } from './order-types';

interface Props {
  readonly session: Session;
  readonly order: Order;
  readonly locations: readonly Location[];
  readonly onDone: (message: string) => void;
  readonly onClose: () => void;
}

const DISPOSITION_LABELS: Record<Disposition, string> = {
  restock: 'Restock (available again)',
  'quality-control': 'Quality control (held for inspection)',
  damaged: 'Damaged (set aside)',
  missing: 'Missing (never came back)',
};

interface Row {
  readonly locationId: string;
  readonly quantity: string;
  readonly disposition: Disposition;
}

/** Takes back shipped units, per line: how many, where they came back to, and what becomes of them. */
export function ReturnForm({ session, order, locations, onDone, onClose }: Props) {
  const lines = order.lines.filter((line) => line.returnedQuantity < line.shippedQuantity);
  const [rows, setRows] = useState<Row[]>(() =>
    lines.map((line) => ({
      locationId: String(line.allocations[0]?.locationId ?? locations[0]?.id ?? ''),
      quantity: String(line.shippedQuantity - line.returnedQuantity),
      disposition: 'restock',
    })),
  );
  const change = (index: number, changes: Partial<Row>) =>
    setRows((current) => current.map((row, at) => (at === index ? { ...row, ...changes } : row)));

  const submit = async (post: PostOnce) => {
    const returned = lines
      .map((line, index) => ({ line, row: rows[index]! }))
      .filter(({ row }) => Number(row.quantity) > 0)
      .map(({ line, row }) => ({
        productId: line.productId,
        quantity: Number(row.quantity),
        locationId: Number(row.locationId),
        disposition: row.disposition,
      }));
    const answer = await post<{ id: string }>(STOCK, '/api/returns', { orderId: order.id, lines: returned });
    return unitsRecorded('Return', answer.id, returned);
  };

  return (
    <ActionForm
      session={session}
      title="Record return"
      headingId="return-heading"
      confirm="Confirm return"
      submit={submit}
      onDone={onDone}
      onClose={onClose}
    >
      {lines.map((line, index) => (
        <fieldset key={line.productId} className="fields">
          <legend>
            {line.name} ({line.shippedQuantity - line.returnedQuantity} can come back)
          </legend>
          <label htmlFor={`return-quantity-${index}`}>Quantity</label>
          <input
            id={`return-quantity-${index}`}
            type="number"
            inputMode="numeric"
            min={0}
            max={line.shippedQuantity - line.returnedQuantity}
            step={1}
            required
            value={rows[index]!.quantity}
            onChange={(event) => change(index, { quantity: event.target.value })}
          />
          <label htmlFor={`return-disposition-${index}`}>Disposition</label>
          <select
            id={`return-disposition-${index}`}
            value={rows[index]!.disposition}
            onChange={(event) => change(index, { disposition: event.target.value as Disposition })}
          >
            {DISPOSITIONS.map((disposition) => (
              <option key={disposition} value={disposition}>
                {DISPOSITION_LABELS[disposition]}
              </option>
            ))}
          </select>
          <label htmlFor={`return-location-${index}`}>Location</label>
          <select
            id={`return-location-${index}`}
            value={rows[index]!.locationId}
            onChange={(event) => change(index, { locationId: event.target.value })}
          >
            {locations.map((location) => (
              <option key={location.id} value={location.id}>
                {location.code}
              </option>
            ))}
          </select>
        </fieldset>
      ))}
    </ActionForm>
  );
}
