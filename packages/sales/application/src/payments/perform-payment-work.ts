import type { Clock, UnitOfWork } from '@platform/kernel';
import {
  fromMinorUnits,
  type Order,
  type Outcome,
  type PaymentProvider,
  PaymentRefusedError,
  type PaymentWork,
  type SalesTransaction,
  toMinorUnits,
} from '@sales/domain';
import { changeOrder } from '../orders/change-order';

export interface PerformPaymentWorkSettings {
  readonly clock: Clock;
  /** The shop's currency (CURRENCY), ISO 4217 in upper case: what authorisations are asked in. */
  readonly currency: string;
}

/**
 * The provider refused the call for good (a capture or cancel it will never accept, a refund it will not make): the
 * refusal is recorded on the order and the call is not made again.
 */
export interface PaymentWorkRefusal {
  readonly refused: PaymentWork['kind'];
  /** The provider's words. */
  readonly reason: string;
}

/**
 * What the call did: nothing was owed, the call was made and its answer recorded (or it changed nothing), or the
 * provider refused it for good (recorded too).
 */
export type PaymentWorkOutcome = 'none' | PaymentWork['kind'] | PaymentWorkRefusal;

/** The provider's part is the system's: its answer may concern any order. */
const SYSTEM = { kind: 'admin' } as const;

/** How a call's answer moves the order on, decided once the answer is in. */
type Answer = (order: Order, at: Date) => Outcome;

/**
 * Makes the one call an order owes the payment provider (Order.paymentWork), then records the answer in a unit of
 * work of its own. The call is made outside any transaction, so a slow or absent provider holds no row and no
 * connection; its idempotency key comes from the order (or the refund), so a call made again after a crash, a lost
 * answer or a lease another instance took has one effect at the provider. The worker runs it for every order whose
 * row says a call is due.
 */
export class PerformPaymentWork {
  constructor(
    private readonly unitOfWork: UnitOfWork<SalesTransaction>,
    private readonly provider: PaymentProvider,
    private readonly settings: PerformPaymentWorkSettings,
  ) {}

  /**
   * Throws what the provider threw when it could not be reached or may answer otherwise later (UnavailableError: down,
   * failing, limiting the rate, in a conflict), and what it refused to authorise, with nothing recorded, for the worker
   * to try again later. A capture or a cancel the provider refuses (PaymentRefusedError) is recorded on the payment
   * (paymentCallRefused), a refund it refuses as failed (its amount may be refunded again): both answer the refusal,
   * and neither call is made again.
   */
  async execute(orderId: string): Promise<PaymentWorkOutcome> {
    const order = await this.unitOfWork.run((tx) => tx.orders.findById(orderId), { singleCall: true });
    const work = order?.paymentWork();
    if (!order || !work) return 'none';
    let answer: Answer;
    let refusal: PaymentWorkRefusal | undefined;
    try {
      answer = await this.call(order, work);
    } catch (error) {
      if (!(error instanceof PaymentRefusedError) || work.kind === 'authorise') throw error;
      refusal = { refused: work.kind, reason: error.message };
      answer = this.refused(order, work, error.message);
    }
    await this.unitOfWork.run((tx) => changeOrder(tx, orderId, SYSTEM, this.settings.clock, answer));
    return refusal ?? work.kind;
  }

  /** How a refusal of `work` is recorded: on the refund (failed), or on the payment (its capture or cancel). */
  private refused(order: Order, work: Exclude<PaymentWork, { kind: 'authorise' }>, reason: string): Answer {
    const intentId = order.payment?.intentId ?? '';
    if (work.kind === 'refund') return (current, at) => current.refundRefused(work.refund.id, reason, at);
    return (current, at) => current.paymentCallRefused(intentId, work.kind, reason, at);
  }

  private async call(order: Order, work: PaymentWork): Promise<Answer> {
    const { provider } = this;
    const intentId = order.payment?.intentId ?? '';
    switch (work.kind) {
      case 'authorise': {
        const { currency } = this.settings;
        const authorisation = await provider.createAuthorisation({
          orderId: order.id,
          amount: toMinorUnits(order.total),
          currency,
          idempotencyKey: `authorise-${order.id}`,
        });
        return (current, at) => current.authorisationCreated(provider.name, authorisation, currency, at);
      }
      case 'capture': {
        const capture = await provider.capture({ intentId, idempotencyKey: `capture-${order.id}` });
        return (current, at) => current.paymentCaptured(intentId, fromMinorUnits(capture.capturedAmount), at);
      }
      case 'cancel': {
        await provider.cancel({ intentId, idempotencyKey: `cancel-${order.id}` });
        return (current, at) => current.paymentCanceled(intentId, at);
      }
      case 'refund':
        return this.refund(order, intentId, work.refund.id);
    }
  }

  private async refund(order: Order, intentId: string, refundId: string): Promise<Answer> {
    const refund = order.refunds.find((r) => r.id === refundId)!;
    const made = await this.provider.refund({
      orderId: order.id,
      intentId,
      amount: toMinorUnits(refund.amount),
      reason: refund.reason,
      idempotencyKey: `refund-${refund.id}`,
    });
    return (current, at) => current.refundSent(refund.id, made.refundId, made.status, at);
  }
}
