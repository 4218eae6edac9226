import { newEvent } from '@commerce/contracts';
import type { Clock, UnitOfWork } from '@platform/kernel';
import type { Order, SalesTransaction, Viewer } from '@sales/domain';
import { changeOrder } from './change-order';

export class PayOrder {
  constructor(
    private readonly unitOfWork: UnitOfWork<SalesTransaction>,
    private readonly clock: Clock,
  ) {}

  /** reserved → paid, and sales.order.paid (stock commits the hold), in one unit of work. Stands in for a payment provider's callback. */
  execute(id: string, viewer: Viewer): Promise<Order> {
    return this.unitOfWork.run((tx) =>
      changeOrder(tx, id, viewer, this.clock, (order, at) => order.pay(at), (order, at) => tx.outbox.add(newEvent('sales.order.paid', { orderId: order.id }, at))),
    );
  }
}
