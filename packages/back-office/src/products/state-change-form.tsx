import { type FormEvent, useState } from 'react';
import { type ApiProblem, callApi } from '../api';
import { ProblemMessage } from '../problem-message';
import { type Session, STOCK } from '../session';
import type { Location } from '../types';
import { asProblem } from '../use-api';
import { ADJUSTMENT_REASON_CODES } from './reason-codes';

/** The states units on hand move between (the stock API's StockStateChange), by the name the page shows. */
const MOVABLE_STATES = [
  ['available', 'Available'],
  ['quality-control', 'Quality control'],
  ['damaged', 'Damaged'],
] as const;

interface Props {
  readonly session: Session;
  readonly productId: number;
  readonly locations: readonly Location[];
  readonly onMoved: () => void;
}

/** Moves units on hand at a location from one state to another (on hand unchanged); a refusal shows here. */
export function StateChangeForm({ session, productId, locations, onMoved }: Props) {
  const [from, setFrom] = useState('available');
  const [to, setTo] = useState('quality-control');
  const [quantity, setQuantity] = useState('');
  const [locationId, setLocationId] = useState(String(locations[0]?.id ?? ''));
  const [reasonCode, setReasonCode] = useState('correction');
  const [problem, setProblem] = useState<ApiProblem>();
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const named = (state: string) => MOVABLE_STATES.find(([value]) => value === state)?.[1] ?? state;

  const move = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(undefined);
    setDone('');
    setBusy(true);
    try {
      await callApi(session, STOCK, `/api/products/${productId}/stock-state-changes`, {
        method: 'POST',
        headers: { 'idempotency-key': crypto.randomUUID() },
        body: { locationId: Number(locationId), quantity: Number(quantity), from, to, reasonCode },
      });
      setDone(`Moved ${quantity} from ${named(from)} to ${named(to)}.`);
      setQuantity('');
      onMoved();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  const states = (id: string, value: string, set: (value: string) => void) => (
    <select id={id} value={value} onChange={(event) => set(event.target.value)}>
      {MOVABLE_STATES.map(([state, name]) => (
        <option key={state} value={state}>
          {name}
        </option>
      ))}
    </select>
  );
  return (
    <form aria-labelledby="move-units" className="panel" onSubmit={(event) => void move(event)}>
      <h2 id="move-units">Move units between states</h2>
      <div className="fields">
        <label htmlFor="move-from">From state</label>
        {states('move-from', from, setFrom)}
        <label htmlFor="move-to">To state</label>
        {states('move-to', to, setTo)}
        <label htmlFor="move-quantity">Quantity</label>
        <input
          id="move-quantity"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          required
          value={quantity}
          onChange={(event) => setQuantity(event.target.value)}
        />
        <label htmlFor="move-location">At location</label>
        <select id="move-location" value={locationId} onChange={(event) => setLocationId(event.target.value)}>
          {locations.map((location) => (
            <option key={location.id} value={location.id}>
              {location.code}
            </option>
          ))}
        </select>
        <label htmlFor="move-reason">Reason</label>
        <select id="move-reason" value={reasonCode} onChange={(event) => setReasonCode(event.target.value)}>
          {ADJUSTMENT_REASON_CODES.map((code) => (
            <option key={code} value={code}>
              {code}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" disabled={busy}>
        Move units
      </button>
      <ProblemMessage problem={problem} />
      <p role="status">{done}</p>
    </form>
  );
}
