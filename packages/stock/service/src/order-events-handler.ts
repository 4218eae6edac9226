import { decodeEventFor, eventTypesConsumedBy, type IntegrationEvent, isConsumedByAService } from '@commerce/contracts';
import type { CommitForOrder, OrderEventOutcome, ReleaseForOrder, ReserveForOrder } from '@stock/application';

/** Stock's queue, and the consumer its inbox records messages for. */
export const STOCK_QUEUE = 'stock-service';

export interface OrderEventUseCases {
  readonly reserveForOrder: ReserveForOrder;
  readonly releaseForOrder: ReleaseForOrder;
  readonly commitForOrder: CommitForOrder;
}

/** A line per handled event, handed over as one object (winston's single-object form). */
export interface EventLogger {
  log(entry: { readonly level: 'info'; readonly message: string; readonly [field: string]: unknown }): void;
}

/**
 * What stock's queue is bound to, how its messages are decoded, and the use case each event calls; each handled event
 * is logged with its order id.
 */
export function orderEventsHandler(
  { reserveForOrder, releaseForOrder, commitForOrder }: OrderEventUseCases,
  logger: EventLogger,
) {
  const dispatch = (event: IntegrationEvent): Promise<OrderEventOutcome> => {
    switch (event.type) {
      case 'sales.order.placed':
        return reserveForOrder.execute(event);
      case 'sales.order.cancelled':
        return releaseForOrder.execute(event);
      case 'sales.order.paid':
        return commitForOrder.execute(event);
      default:
        // decodeEventFor refuses every type stock's queue is not bound to.
        throw new Error(`stock-service does not handle ${event.type}`);
    }
  };
  return {
    consumes: eventTypesConsumedBy(STOCK_QUEUE),
    decode: decodeEventFor(STOCK_QUEUE),
    mustBeRouted: isConsumedByAService,
    async handle(event: IntegrationEvent): Promise<OrderEventOutcome> {
      const outcome = await dispatch(event);
      const { orderId } = event.data as { orderId: string };
      const { id: eventId, type } = event;
      logger.log({ level: 'info', message: 'order event handled', eventId, type, orderId, outcome });
      return outcome;
    },
  };
}
