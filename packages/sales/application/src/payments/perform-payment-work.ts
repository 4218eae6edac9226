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

/** What the call did: nothing was owed, or the call was made and its answer recorded (or it changed nothing). */
export type PaymentWorkOutcome = 'none' | PaymentWork['kind'];

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
   * Throws what the provider threw (UnavailableError: it could not be reached; PaymentRefusedError: it refused an
   * authorisation, a capture or a cancel) with nothing recorded, for the worker to try again later. A refund the
   * provider refuses is recorded as failed: its amount may be refunded again.
   */
  async execute(orderId: string): Promise<PaymentWorkOutcome> {
    const order = await this.unitOfWork.run((tx) => tx.orders.findById(orderId), { singleCall: true });
    const work = order?.paymentWork();
    if (!order || !work) return 'none';
    const answer = await this.call(order, work);
    await this.unitOfWork.run((tx) => changeOrder(tx, orderId, SYSTEM, this.settings.clock, answer));
    return work.kind;
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
    try {
      const made = await this.provider.refund({
        orderId: order.id,
        intentId,
        amount: toMinorUnits(refund.amount),
        reason: refund.reason,
        idempotencyKey: `refund-${refund.id}`,
      });
      return (current, at) => current.refundSent(refund.id, made.refundId, made.status, at);
    } catch (error) {
      if (!(error instanceof PaymentRefusedError)) throw error;
      return (current, at) => current.refundRefused(refund.id, error.message, at);
    }
  }
}
