import { newEvent } from '@commerce/contracts';
import type { Clock, UnitOfWork } from '@platform/kernel';
import type { Order, SalesTransaction, Viewer } from '@sales/domain';
import { changeOrder } from '../orders/change-order';

/** The payment provider is not the order's buyer: its confirmation names the order, whoever placed it. */
const EVERY_ORDER: Viewer = { kind: 'admin' };

export class PayOrder {
  constructor(
    private readonly unitOfWork: UnitOfWork<SalesTransaction>,
    private readonly clock: Clock,
  ) {}

  /**
   * The payment provider confirms that order `id` is paid: reserved → paid,
   * and sales.order.paid (stock commits the hold), in one unit of work. Only
   * the provider calls it (orders:pay, ADR 0016); a buyer never does.
   */
  execute(id: string): Promise<Order> {
    return this.unitOfWork.run((tx) =>
      changeOrder(
        tx,
        id,
        EVERY_ORDER,
        this.clock,
        (order, at) => order.pay(at),
        (order, at) => tx.outbox.add(newEvent('sales.order.paid', { orderId: order.id }, at)),
      ),
    );
  }
}
