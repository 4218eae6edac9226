import { Money } from '@commerce/shared-kernel';
import { expect } from 'chai';
import { Order, PaymentNotCapturedError, RefundExceedsCapturedError } from '../src';
import { paidThroughProvider, TEST_AUTHORISATION, withAuthorisation } from '../testing';

const at = new Date('2026-11-30T10:00:00Z');
const later = new Date('2026-11-30T10:05:00Z');
const intent = TEST_AUTHORISATION.intentId;
const euros = (text: string) => Money.fromDecimalString(text);

/** 3 lamps at 19.99: 59.97 in all. */
function reserved(): Order {
  const placed = Order.place(
    'o-1',
    'buyer-a',
    [{ productId: 1, name: 'Lamp', unitPrice: euros('19.99'), quantity: 3 }],
    at,
  );
  return placed.reservationConfirmed('r-1', later, at).order;
}

const captured = () => {
  const shipped = paidThroughProvider(reserved(), at).shipmentCreated([{ productId: 1, quantity: 1 }], at).order;
  return shipped.paymentCaptured(intent, shipped.total, at).order;
};

describe("an order's payment", () => {
  it('owes an authorisation once stock holds it, and nothing before or once the authorisation exists', () => {
    const placed = Order.place('o-1', 'b', [{ productId: 1, name: 'Lamp', unitPrice: euros('1'), quantity: 1 }], at);
    expect(placed.paymentWork()).to.equal(undefined);
    expect(reserved().paymentWork()).to.deep.equal({ kind: 'authorise' });
    const authorising = withAuthorisation(reserved(), at);
    expect(authorising.payment).to.deep.include({
      provider: 'stripe',
      intentId: intent,
      clientSecret: TEST_AUTHORISATION.clientSecret,
      status: 'requires_payment_method',
      currency: 'EUR',
    });
    expect(authorising.payment!.amount.toString()).to.equal('59.97');
    expect(authorising.paymentWork()).to.equal(undefined);
    expect(
      authorising.authorisationCreated('stripe', { ...TEST_AUTHORISATION, intentId: 'pi_other' }, 'EUR', at),
    ).to.have.property('changed', false);
  });

  it('records a capture or a cancel the provider refused for good, and owes it no more; a new authorisation clears it', () => {
    const shipped = paidThroughProvider(reserved(), at).shipmentCreated([{ productId: 1, quantity: 1 }], at).order;
    expect(shipped.paymentWork()).to.deep.equal({ kind: 'capture' });
    const refused = shipped.paymentCallRefused(intent, 'capture', 'status of canceled', later).order;
    expect(refused.payment).to.deep.include({
      status: 'authorized',
      refusedCall: 'capture',
      lastError: 'status of canceled',
    });
    expect(refused.paymentWork()).to.equal(undefined);
    expect(shipped.paymentCallRefused(intent, 'cancel', 'not owed', later), 'a call not owed').to.have.property(
      'changed',
      false,
    );
    expect(shipped.paymentCallRefused('pi_other', 'capture', 'another intent', later)).to.have.property(
      'changed',
      false,
    );

    const cancelled = withAuthorisation(reserved(), at).cancel(at).order;
    expect(cancelled.paymentWork()).to.deep.equal({ kind: 'cancel' });
    const kept = cancelled.paymentCallRefused(intent, 'cancel', 'no such payment_intent', later).order;
    expect(kept.payment).to.deep.include({ status: 'requires_payment_method', refusedCall: 'cancel' });
    expect(kept.paymentWork()).to.equal(undefined);
    // The buyer confirms after all: the new authorisation is owed its cancel again, and the old refusal is gone.
    const authorised = kept.paymentAuthorized(intent, euros('59.97'), 'EUR', later, later).order;
    expect(authorised.payment).not.to.have.property('refusedCall');
    expect(authorised.paymentWork()).to.deep.equal({ kind: 'cancel' });
  });

  it('is paid only by an authorisation of the total in its currency; anything else is recorded and given back', () => {
    const authorising = withAuthorisation(reserved(), at);
    const paid = authorising.paymentAuthorized(intent, euros('59.97'), 'EUR', at, later).order;
    expect(paid).to.include({ status: 'paid' });
    expect(paid.payment).to.include({ status: 'authorized' }).and.not.have.property('lastError');
    expect(paid.paymentWork()).to.equal(undefined);
    for (const [amount, currency] of [
      ['59.96', 'EUR'],
      ['59.97', 'USD'],
    ] as const) {
      const wrong = authorising.paymentAuthorized(intent, euros(amount), currency, at, later).order;
      expect(wrong).to.include({ status: 'reserved' });
      expect(wrong.payment?.lastError).to.match(/not the order's total 59\.97 EUR/);
      expect(wrong.paymentWork()).to.deep.equal({ kind: 'cancel' });
    }
  });

  it('keeps why a confirmation was declined, and is paid by the authorisation after it', () => {
    const declined = withAuthorisation(reserved(), at).authorisationFailed(intent, 'Your card was declined.', at, at);
    expect(declined.order.payment).to.include({
      status: 'requires_payment_method',
      lastError: 'Your card was declined.',
    });
    const paid = declined.order.paymentAuthorized(intent, euros('59.97'), 'EUR', later, later).order;
    expect(paid).to.include({ status: 'paid' });
    expect(paid.payment).not.to.have.property('lastError');
    // The decline delivered again, or late: nothing moves backwards.
    expect(paid.authorisationFailed(intent, 'Your card was declined.', at, later)).to.have.property('changed', false);
  });

  it('ignores duplicates, events older than what it applied, and events about another intent', () => {
    const paid = paidThroughProvider(reserved(), later);
    expect(paid.paymentAuthorized(intent, paid.total, 'EUR', later, later)).to.have.property('changed', false);
    expect(paid.paymentCanceled(intent, later, at)).to.have.property('changed', false);
    expect(paid.paymentCanceled('pi_other', later)).to.have.property('changed', false);
    const withIt = withAuthorisation(reserved(), at);
    expect(withIt.paymentAuthorized('pi_other', withIt.total, 'EUR', at, at)).to.have.property('changed', false);
  });

  it('is captured once a unit shipped, and owes nothing after', () => {
    const shipped = paidThroughProvider(reserved(), at).shipmentCreated([{ productId: 1, quantity: 1 }], at).order;
    expect(shipped.paymentWork()).to.deep.equal({ kind: 'capture' });
    const taken = shipped.paymentCaptured(intent, shipped.total, at).order;
    expect(taken.payment).to.include({ status: 'captured' });
    expect(taken.payment!.capturedAmount.toString()).to.equal('59.97');
    expect(taken.paymentWork()).to.equal(undefined);
    expect(taken.paymentCaptured(intent, taken.total, later, later)).to.have.property('changed', false);
  });

  it('is given back when the order will never ship: cancelled after payment, unfulfilled, or authorised too late', () => {
    const paid = paidThroughProvider(reserved(), at);
    const cancelled = paid.cancel(later).order;
    expect(cancelled).to.include({ status: 'cancelled', paymentToRelease: true });
    expect(cancelled.paymentWork()).to.deep.equal({ kind: 'cancel' });
    const released = cancelled.paymentCanceled(intent, later).order;
    expect(released.payment).to.include({ status: 'canceled' });
    expect(released).not.to.have.property('paymentToRelease');
    expect(released.paymentWork()).to.equal(undefined);

    const unfulfilled = paid.commitFailed('the hold had expired', later).order;
    expect(unfulfilled).to.include({ status: 'unfulfilled', paymentToRelease: true });
    expect(unfulfilled.paymentWork()).to.deep.equal({ kind: 'cancel' });

    const expired = withAuthorisation(reserved(), at).reservationExpired('r-1', later).order;
    expect(expired.paymentWork(), 'an authorisation nobody confirmed yet is cancelled too').to.deep.equal({
      kind: 'cancel',
    });
    const lateMoney = expired.paymentAuthorized(intent, expired.total, 'EUR', later, later).order;
    expect(lateMoney).to.include({ status: 'expired', paymentToRelease: true });
    expect(lateMoney.payment).to.include({ status: 'authorized' });
    expect(lateMoney.payment?.lastError).to.match(/expired/);
    expect(lateMoney.paymentWork()).to.deep.equal({ kind: 'cancel' });
  });

  it('refunds what was taken for an order that will not ship, whole, at once', () => {
    const paid = paidThroughProvider(reserved(), at);
    const cancelled = paid.cancel(later).order;
    const taken = cancelled.paymentCaptured(intent, paid.total, later).order;
    expect(taken.refunds).to.have.length(1);
    expect(taken.refunds[0]).to.include({ status: 'pending' });
    expect(taken.refunds[0]!.amount.toString()).to.equal('59.97');
    expect(taken.paymentWork()).to.deep.equal({ kind: 'refund', refund: taken.refunds[0] });
  });
});

describe("an order's refunds", () => {
  it('are refused before capture: there is nothing to give back yet', () => {
    expect(() => paidThroughProvider(reserved(), at).refundRequested('f-1', euros('1'), 'r', at)).to.throw(
      PaymentNotCapturedError,
    );
    expect(() => reserved().refundRequested('f-1', euros('1'), 'r', at)).to.throw(PaymentNotCapturedError);
  });

  it('never exceed what was captured, pending ones counted, failed ones not', () => {
    const first = captured().refundRequested('f-1', euros('50.00'), 'broken', at).order;
    expect(() => first.refundRequested('f-2', euros('9.98'), 'more', at))
      .to.throw(RefundExceedsCapturedError)
      .with.property('refundable', '9.97');
    const second = first.refundRequested('f-2', euros('9.97'), 'the rest', at).order;
    expect(second.refunds.map((r) => [r.id, r.status])).to.deep.equal([
      ['f-1', 'pending'],
      ['f-2', 'pending'],
    ]);
    const failed = second
      .refundSent('f-1', 're_1', 'pending', at)
      .order.refundSettled('re_1', 'failed', at, 'expired_or_canceled_card').order;
    expect(failed.refunds[0]).to.include({ status: 'failed', failureReason: 'expired_or_canceled_card' });
    expect(failed.refundRequested('f-3', euros('50.00'), 'again', at).order.refunds).to.have.length(3);
  });

  it('are sent one at a time, settled by the provider, and the payment is refunded once all was given back', () => {
    const asked = captured()
      .refundRequested('f-1', euros('20.00'), 'one', at)
      .order.refundRequested('f-2', euros('39.97'), 'rest', at).order;
    expect(asked.paymentWork()).to.deep.include({ kind: 'refund' }).and.have.nested.property('refund.id', 'f-1');
    const sent = asked.refundSent('f-1', 're_1', 'pending', at).order;
    expect(sent.paymentWork()).to.have.nested.property('refund.id', 'f-2');
    expect(sent.awaitsProviderRefund()).to.equal(true);
    const both = sent.refundSent('f-2', 're_2', 'pending', at).order;
    expect(both.paymentWork()).to.equal(undefined);
    const one = both.refundSettled('re_1', 'succeeded', at).order;
    expect(one.payment).to.include({ status: 'captured' });
    expect(one.payment!.refundedAmount.toString()).to.equal('20.00');
    expect(one.refundSettled('re_1', 'succeeded', later)).to.have.property('changed', false);
    const all = one.refundSettled('re_2', 'succeeded', at).order;
    expect(all.payment).to.include({ status: 'refunded' });
    expect(all.payment!.refundedAmount.toString()).to.equal('59.97');
  });

  it('fail when the provider refuses them, and their amount may be asked for again', () => {
    const refused = captured()
      .refundRequested('f-1', euros('59.97'), 'all', at)
      .order.refundRefused('f-1', 'Refund amount is greater than unrefunded amount', at).order;
    expect(refused.refunds[0]).to.include({ status: 'failed' });
    expect(refused.paymentWork()).to.equal(undefined);
  });
});
