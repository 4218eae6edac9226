import { newEvent } from '@commerce/contracts';
import type { Clock, UnitOfWork } from '@platform/kernel';
import type { Order, SalesTransaction, Viewer } from '@sales/domain';
import { changeOrder } from './change-order';

export class CancelOrder {
  constructor(
    private readonly unitOfWork: UnitOfWork<SalesTransaction>,
    private readonly clock: Clock,
  ) {}

  /**
   * pending | reserved | paid → cancelled, and sales.order.cancelled (stock releases the held or committed units), in
   * one unit of work. A paid order records that its payment is to be released; one that shipped a unit is refused.
   */
  execute(id: string, viewer: Viewer): Promise<Order> {
    return this.unitOfWork.run((tx) =>
      changeOrder(
        tx,
        id,
        viewer,
        this.clock,
        (order, at) => order.cancel(at),
        (order, at) => tx.outbox.add(newEvent('sales.order.cancelled', { orderId: order.id }, at)),
      ),
    );
  }
}
