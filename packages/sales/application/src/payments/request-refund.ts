import type { Money } from '@commerce/shared-kernel';
import type { Clock, IdempotentRequest, OnceResult, ResultFormat, UnitOfWork } from '@platform/kernel';
import { runOnce } from '@platform/kernel';
import {
  type OrderRefund,
  refundFromSnapshot,
  type RefundSnapshot,
  refundSnapshot,
  type SalesTransaction,
} from '@sales/domain';
import { changeOrder } from '../orders/change-order';

export interface RequestRefundSettings {
  readonly clock: Clock;
  /** Time-ordered ids (UUID v7) for refunds. */
  readonly newId: () => string;
}

/** A refund as an idempotency record keeps it, so a repeat answers the refund the first request made. */
const refundRecord: ResultFormat<OrderRefund> = {
  serialise: (refund) => JSON.stringify(refundSnapshot(refund)),
  deserialise: (text) => refundFromSnapshot(JSON.parse(text) as RefundSnapshot),
};

/** orders:refund acts on any order, whoever its buyer. */
const ANY_ORDER = { kind: 'admin' } as const;

export class RequestRefund {
  constructor(
    private readonly unitOfWork: UnitOfWork<SalesTransaction>,
    private readonly settings: RequestRefundSettings,
  ) {}

  /**
   * Records a pending refund of `amount` on order `orderId`, once per idempotency key, with the order's row locked:
   * however many requests arrive at once, the refunds pending and made never exceed what was captured. The payment
   * worker sends it to the provider; the provider's event settles it.
   */
  execute(
    orderId: string,
    amount: Money,
    reason: string,
    idempotency: IdempotentRequest,
  ): Promise<OnceResult<OrderRefund>> {
    return runOnce(this.unitOfWork, idempotency, refundRecord, async (tx) => {
      const id = this.settings.newId();
      const order = await changeOrder(tx, orderId, ANY_ORDER, this.settings.clock, (current, at) =>
        current.refundRequested(id, amount, reason, at),
      );
      return order.refunds.find((refund) => refund.id === id)!;
    });
  }
}
