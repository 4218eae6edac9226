import { decodeEventFor, eventTypesConsumedBy, type IntegrationEvent } from '@commerce/contracts';
import type { HandleStockEvent, StockEventOutcome } from '@sales/application';

/** Sales' queue, and the consumer its inbox records messages for. */
export const SALES_QUEUE = 'sales-service';

/** What sales' queue is bound to, how its messages are decoded, and the use case that applies them to orders. */
export function stockEventsHandler(handleStockEvent: HandleStockEvent) {
  return {
    consumes: eventTypesConsumedBy(SALES_QUEUE),
    decode: decodeEventFor(SALES_QUEUE),
    handle(event: IntegrationEvent): Promise<StockEventOutcome> {
      if (!event.type.startsWith('stock.reservation.')) throw new Error(`sales-service does not handle ${event.type}`);
      return handleStockEvent.execute(event as Parameters<HandleStockEvent['execute']>[0]);
    },
  };
}
