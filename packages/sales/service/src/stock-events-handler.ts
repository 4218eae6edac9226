import { decodeEventFor, eventTypesConsumedBy, type IntegrationEvent, isConsumedByAService } from '@commerce/contracts';
import { type HandleStockEvent, isStockEvent, type StockEventOutcome } from '@sales/application';

/** Sales' queue, and the consumer its inbox records messages for. */
export const SALES_QUEUE = 'sales-service';

/** A line per handled event, handed over as one object (winston's single-object form). */
export interface EventLogger {
  log(entry: { readonly level: 'info'; readonly message: string; readonly [field: string]: unknown }): void;
}

/**
 * What sales' queue is bound to, how its messages are decoded, and the use case that applies them to orders; each
 * handled event is logged with its order id.
 */
export function stockEventsHandler(handleStockEvent: HandleStockEvent, logger: EventLogger) {
  return {
    consumes: eventTypesConsumedBy(SALES_QUEUE),
    decode: decodeEventFor(SALES_QUEUE),
    mustBeRouted: isConsumedByAService,
    async handle(event: IntegrationEvent): Promise<StockEventOutcome> {
      if (!isStockEvent(event)) throw new Error(`sales-service does not handle ${event.type}`);
      const outcome = await handleStockEvent.execute(event);
      const { id: eventId, type, data } = event;
      logger.log({ level: 'info', message: 'stock event handled', eventId, type, orderId: data.orderId, outcome });
      return outcome;
    },
  };
}
