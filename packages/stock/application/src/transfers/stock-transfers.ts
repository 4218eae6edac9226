import type { Clock, OnceResult, UnitOfWork } from '@platform/kernel';
import {
  InsufficientStockError,
  isRefusal,
  LocationNotFoundError,
  ProductNotFoundError,
  type StockTransaction,
  type StockTransfer,
  TransferNotFoundError,
  TransferNotInTransitError,
  type TransferPage,
  type TransferPageQuery,
  type TransferRequest,
  transferTransition,
} from '@stock/domain';
import { actorOf, type WriteOptions } from '../options';
import { DEFAULT_STOCK_CHANGE_SETTINGS, saveChange, type StockChangeSettings, withFills } from '../stock/stock-changes';

export interface TransferSettings extends Partial<StockChangeSettings> {
  readonly clock: Clock;
  readonly newId: () => string;
}

/**
 * Stock transfers between locations: sending takes the units out of `from`
 * at once and shows them incoming at `to`; receiving puts them on hand at
 * `to`, cancelling back at `from`. Each step is one transaction and one
 * ledger movement carrying the transfer's id; stock that arrives fills
 * backordered holds there.
 */
export class StockTransfers {
  private readonly changeSettings: StockChangeSettings;

  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly settings: TransferSettings,
  ) {
    this.changeSettings = { ...DEFAULT_STOCK_CHANGE_SETTINGS, ...settings };
  }

  /**
   * Sends a transfer, or answers the one its reference already names
   * (`replayed`), whatever it asked. Throws LocationNotFoundError,
   * ProductNotFoundError or InsufficientStockError (from has fewer available)
   * with nothing changed.
   */
  send(request: TransferRequest, { requestId, caller }: WriteOptions = {}): Promise<OnceResult<StockTransfer>> {
    return this.unitOfWork.run(async (tx) => {
      const existing = await tx.transfers.findByReference(request.reference);
      if (existing) return { value: existing, replayed: true };
      for (const locationId of [request.fromLocationId, request.toLocationId])
        if (!(await tx.locations.findById(locationId))) throw new LocationNotFoundError(locationId);
      const now = this.settings.clock();
      const transfer: StockTransfer = {
        id: this.settings.newId(),
        productId: request.productId,
        fromLocationId: request.fromLocationId,
        toLocationId: request.toLocationId,
        quantity: request.quantity,
        reference: request.reference,
        status: 'in-transit',
        createdAt: now,
        updatedAt: now,
      };
      // Claimed first: a concurrent request with the same reference waits here for this one, then answers it.
      if ((await tx.transfers.claim(transfer)) === 'taken')
        return { value: (await tx.transfers.findByReference(request.reference))!, replayed: true };
      const stock = await tx.stock.lock(request.productId);
      if (!stock) throw new ProductNotFoundError(request.productId);
      const sent = stock.sendTransfer(transfer, this.changeSettings);
      if (isRefusal(sent)) throw new InsufficientStockError(request.productId, sent.available, -request.quantity);
      await saveChange(tx, sent, { at: now, requestId, actor: actorOf(caller) }, this.changeSettings);
      return { value: transfer, replayed: false };
    });
  }

  find(id: string): Promise<StockTransfer> {
    return this.unitOfWork.run(
      async (tx) => {
        const transfer = await tx.transfers.findById(id);
        if (!transfer) throw new TransferNotFoundError(id);
        return transfer;
      },
      { singleCall: true },
    );
  }

  /** A page of every transfer, in transit first, then newest first (TransferKey). */
  list(query: TransferPageQuery): Promise<TransferPage> {
    return this.unitOfWork.run((tx) => tx.transfers.list(query), { singleCall: true });
  }

  /** Receives the units at `to`; repeating it answers the transfer as it is. */
  receive(id: string, options: WriteOptions = {}): Promise<StockTransfer> {
    return this.end(id, 'received', options);
  }

  /** Returns the units to `from`; repeating it answers the transfer as it is. */
  cancel(id: string, options: WriteOptions = {}): Promise<StockTransfer> {
    return this.end(id, 'cancelled', options);
  }

  private end(id: string, to: 'received' | 'cancelled', { requestId, caller }: WriteOptions): Promise<StockTransfer> {
    return this.unitOfWork.run(async (tx) => {
      const current = await tx.transfers.findById(id);
      if (!current) throw new TransferNotFoundError(id);
      const decision = transferTransition(current.status, to);
      if (decision === 'unchanged') return current;
      const at = this.settings.clock();
      // Conditional (in-transit → to): of two steps racing, one moves it and the other finds it moved.
      const moved = decision === 'apply' ? await tx.transfers.transition(id, to, at) : undefined;
      if (!moved) {
        const now = (await tx.transfers.findById(id))!;
        if (now.status === to) return now;
        throw new TransferNotInTransitError(id, now.status);
      }
      const stock = await tx.stock.lock(moved.productId);
      if (!stock) throw new Error(`Product ${moved.productId}, in transfer ${id}, is gone: nothing was changed.`);
      const arrival = to === 'received' ? moved.toLocationId : moved.fromLocationId;
      const ended = stock.endTransfer(moved, to, this.changeSettings);
      const change = await withFills(tx, ended, arrival, moved.quantity, this.changeSettings);
      await saveChange(tx, change, { at, requestId, actor: actorOf(caller) }, this.changeSettings);
      return moved;
    });
  }
}
