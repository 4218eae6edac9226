import { newEvent } from '@commerce/contracts';
import { type Clock, type OnceResult, recordedResult, runOnce, type UnitOfWork } from '@platform/kernel';
import {
  Order,
  type OrderRequest,
  type ProductCatalog,
  type SalesTransaction,
  UnknownProductsError,
} from '@sales/domain';
import type { WriteOptions } from '../options';
import { orderRecord } from './order-record';

export interface PlaceOrderSettings {
  readonly clock: Clock;
  /** Time-ordered ids (UUID v7), so orders page in the order they were placed. */
  readonly newId: () => string;
}

export class PlaceOrder {
  constructor(
    private readonly unitOfWork: UnitOfWork<SalesTransaction>,
    private readonly catalog: ProductCatalog,
    private readonly settings: PlaceOrderSettings,
  ) {}

  /**
   * Quotes the lines from stock's catalogue (each line keeps the name and the
   * price of that moment), then stores the order and its sales.order.placed
   * event in one unit of work. The quote is read before any transaction
   * opens: a network call never holds one. When stock does not answer, the
   * catalogue throws UnavailableError and nothing is recorded. A repeat of a
   * request already recorded under its idempotency key is answered first,
   * without asking stock: it gets its order even while stock is down.
   */
  async execute(buyer: string, request: OrderRequest, { idempotency }: WriteOptions = {}): Promise<OnceResult<Order>> {
    const replay = idempotency && (await recordedResult(this.unitOfWork, idempotency, orderRecord));
    if (replay) return replay;
    const quoted = new Map(
      (await this.catalog.quote(request.lines.map((line) => line.productId))).map((product) => [product.id, product]),
    );
    const unknown = request.lines.filter((line) => !quoted.has(line.productId)).map((line) => line.productId);
    if (unknown.length > 0) throw new UnknownProductsError(unknown);
    const place = async (tx: SalesTransaction) => {
      const now = this.settings.clock();
      const lines = request.lines.map(({ productId, quantity }) => ({
        productId,
        quantity,
        name: quoted.get(productId)!.name,
        unitPrice: quoted.get(productId)!.price,
      }));
      const order = Order.place(this.settings.newId(), buyer, lines, now);
      await tx.orders.add(order);
      await tx.outbox.add(
        newEvent(
          'sales.order.placed',
          { orderId: order.id, lines: request.lines.map(({ productId, quantity }) => ({ productId, quantity })) },
          now,
        ),
      );
      return order;
    };
    if (idempotency) return runOnce(this.unitOfWork, idempotency, orderRecord, place);
    return { value: await this.unitOfWork.run(place), replayed: false };
  }
}
