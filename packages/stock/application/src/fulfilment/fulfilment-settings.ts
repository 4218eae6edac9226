import type { Clock } from '@platform/kernel';
import { ANONYMOUS_CALLER, type MovementContext, type UnitsAt } from '@stock/domain';
import type { WriteOptions } from '../options';
import type { StockChangeSettings } from '../stock/stock-changes';

/** What shipping and receiving returns need besides the unit of work. */
export interface FulfilmentSettings extends Partial<StockChangeSettings> {
  readonly clock: Clock;
  readonly newId: () => string;
}

/** The movements' context of a shipment or a return: whom for, which request, and the record they belong to. */
export function fulfilmentContext(at: Date, record: string, { requestId, caller }: WriteOptions): MovementContext {
  return { at, reason: record, actor: caller ?? ANONYMOUS_CALLER, ...(requestId !== undefined && { requestId }) };
}

/** Lines grouped by product, in product id order (the order products are locked in), each group in its lines' order. */
export function byProduct<T extends Pick<UnitsAt, 'productId'>>(lines: readonly T[]): [number, T[]][] {
  const groups = new Map<number, T[]>();
  for (const line of lines) groups.set(line.productId, [...(groups.get(line.productId) ?? []), line]);
  return [...groups].sort(([a], [b]) => a - b);
}
