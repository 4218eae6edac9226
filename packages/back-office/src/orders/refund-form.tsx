import { useState } from 'react';
import { SALES, type Session } from '../session';
import { ActionForm, type PostOnce } from './action-form';
import { refundable } from './order-actions';
import type { Order, Refund } from './order-types';
import { money } from './money';

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

  const submit = async (post: PostOnce) => {
    const refund = await post<Refund>(SALES, `/api/orders/${order.id}/refunds`, {
      amount: Number(amount),
      reason: reason.trim(),
    });
    return `Refund of ${money(refund.amount, currency)} recorded (${refund.status}): the provider settles it.`;
  };

  return (
    <ActionForm
      session={session}
      title="Refund"
      headingId="refund-heading"
      confirm="Confirm refund"
      submit={submit}
      onDone={onDone}
      onClose={onClose}
    >
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
    </ActionForm>
  );
}
