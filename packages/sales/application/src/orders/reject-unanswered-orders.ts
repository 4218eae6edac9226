import { newEvent } from '@commerce/contracts';
import type { Clock, UnitOfWork } from '@platform/kernel';
import type { SalesTransaction } from '@sales/domain';
import { changeOrder } from './change-order';

export interface RejectUnansweredOrdersSettings {
  readonly clock: Clock;
  /** How long stock has to answer an order (hold it or refuse it) before sales decides it itself. */
  readonly answerTimeoutMs: number;
}

/** Orders looked at in one unit of work each, this many per round. */
const BATCH = 100;

/** Sales acts as the system here, not as a buyer. */
const SYSTEM = { kind: 'admin' } as const;

export class RejectUnansweredOrders {
  constructor(
    private readonly unitOfWork: UnitOfWork<SalesTransaction>,
    private readonly settings: RejectUnansweredOrdersSettings,
  ) {}

  /**
   * Rejects (stock-unanswered) every order still pending past the answer timeout, each in its own unit of work with
   * sales.order.cancelled, so that stock releases a hold it made and refuses the order if it sees it placed later.
   * Nothing else decides an order whose placed event or whose answer was dead-lettered: without this it would stay
   * pending for ever. Instances may run it at once: the order's row lock and its guard let one of them reject it.
   * Answers how many orders it rejected.
   */
  async execute(): Promise<number> {
    const deadline = new Date(this.settings.clock().getTime() - this.settings.answerTimeoutMs);
    let rejected = 0;
    for (;;) {
      const ids = await this.unitOfWork.run((tx) => tx.orders.findPendingPlacedBy(deadline, BATCH), {
        singleCall: true,
      });
      for (const id of ids) {
        let changed = false;
        await this.unitOfWork.run((tx) =>
          changeOrder(
            tx,
            id,
            SYSTEM,
            this.settings.clock,
            (order, at) => order.stockUnanswered(deadline, at),
            async (order, at) => {
              changed = true;
              await tx.outbox.add(newEvent('sales.order.cancelled', { orderId: order.id }, at));
            },
          ),
        );
        if (changed) rejected++;
      }
      if (ids.length < BATCH) return rejected;
    }
  }
}
