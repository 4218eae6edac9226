import { type FormEvent, useState } from 'react';
import { type ApiProblem, callApi } from '../api';
import { ProblemMessage } from '../problem-message';
import { ADJUSTMENT_REASON_CODES } from './reason-codes';
import { type Session, STOCK } from '../session';
import type { Location } from '../types';
import { asProblem } from '../use-api';

interface Props {
  readonly session: Session;
  readonly productId: number;
  readonly locations: readonly Location[];
  readonly onApplied: () => void;
}

/** Adds or takes away units at a location, with a reason code for the ledger; a refusal shows here, with its detail. */
export function AdjustStockForm({ session, productId, locations, onApplied }: Props) {
  const [locationId, setLocationId] = useState(String(locations[0]?.id ?? ''));
  const [change, setChange] = useState('');
  const [reasonCode, setReasonCode] = useState<string>('correction');
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState<ApiProblem>();
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);

  const apply = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(undefined);
    setDone('');
    setBusy(true);
    try {
      await callApi(session, STOCK, `/api/products/${productId}/stock-adjustments`, {
        method: 'POST',
        headers: { 'idempotency-key': crypto.randomUUID() },
        body: {
          delta: Number(change),
          locationId: Number(locationId),
          reasonCode,
          ...(note.trim() !== '' && { reason: note.trim() }),
        },
      });
      setDone(`Applied ${Number(change) > 0 ? '+' : ''}${change} (${reasonCode}).`);
      setChange('');
      setNote('');
      onApplied();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form aria-labelledby="adjust-stock" className="panel" onSubmit={(event) => void apply(event)}>
      <h2 id="adjust-stock">Adjust stock</h2>
      <div className="fields">
        <label htmlFor="adjust-location">Location</label>
        <select id="adjust-location" value={locationId} onChange={(event) => setLocationId(event.target.value)}>
          {locations.map((location) => (
            <option key={location.id} value={location.id}>
              {location.code}
            </option>
          ))}
        </select>
        <label htmlFor="adjust-change">Change</label>
        <input
          id="adjust-change"
          type="number"
          inputMode="numeric"
          step={1}
          required
          value={change}
          onChange={(event) => setChange(event.target.value)}
          aria-describedby="adjust-change-hint"
        />
        <span id="adjust-change-hint" className="hint">
          Units to add (positive) or take away (negative)
        </span>
        <label htmlFor="adjust-reason">Reason</label>
        <select id="adjust-reason" value={reasonCode} onChange={(event) => setReasonCode(event.target.value)}>
          {ADJUSTMENT_REASON_CODES.map((code) => (
            <option key={code} value={code}>
              {code}
            </option>
          ))}
        </select>
        <label htmlFor="adjust-note">Note</label>
        <input id="adjust-note" maxLength={200} value={note} onChange={(event) => setNote(event.target.value)} />
      </div>
      <button type="submit" disabled={busy}>
        Apply
      </button>
      <ProblemMessage problem={problem} />
      <p role="status">{done}</p>
    </form>
  );
}
