import { type FormEvent, useState } from 'react';
import { callApi } from '../api';
import { ProblemMessage } from '../problem-message';
import { SALES, type Session } from '../session';
import { refundable } from './order-actions';
import type { Order, Refund } from './order-types';
import { money } from './money';
import { useAction } from './use-action';

interface Props {
  readonly session: Session;
  readonly order: Order;
  readonly onDone: (message: string) => void;
  readonly onClose: () => void;
}

/** Gives back part or all of what was captured, with a reason; the provider settles it later. */
export function RefundForm({ session, order, onDone, onClose }: Props) {
  const left = refundable(order);
  const currency = order.payment?.currency;
  const [amount, setAmount] = useState(left.toFixed(2));
  const [reason, setReason] = useState('');
  const { problem, busy, run } = useAction();

  const confirm = (event: FormEvent) => {
    event.preventDefault();
    void run(async (idempotencyKey) => {
      const answer = await callApi<Refund>(session, SALES, `/api/orders/${order.id}/refunds`, {
        method: 'POST',
        headers: { 'idempotency-key': idempotencyKey },
        body: { amount: Number(amount), reason: reason.trim() },
      });
      onDone(
        `Refund of ${money(answer.body.amount, currency)} recorded (${answer.body.status}): the provider settles it.`,
      );
    });
  };

  return (
    <form aria-labelledby="refund-heading" className="panel" onSubmit={confirm}>
      <h2 id="refund-heading">Refund</h2>
      <div className="fields">
        <label htmlFor="refund-amount">Amount</label>
        <input
          id="refund-amount"
          type="number"
          inputMode="decimal"
          min={0.01}
          step={0.01}
          required
          value={amount}
          onChange={(event) => setAmount(event.target.value)}
          aria-describedby="refund-amount-hint"
        />
        <span id="refund-amount-hint" className="hint">
          Up to {money(left, currency)}: what was captured, less the refunds pending or made
        </span>
        <label htmlFor="refund-reason">Reason</label>
        <input
          id="refund-reason"
          required
          maxLength={500}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
      </div>
      <div className="toolbar">
        <button type="submit" disabled={busy}>
          Confirm refund
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <ProblemMessage problem={problem} />
    </form>
  );
}
