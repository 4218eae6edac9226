import type { InMemoryTransaction } from '@platform/persistence/memory';
import type { ReturnRepository, StockReturn } from '@stock/domain';
import type { InMemoryStockTables } from '../in-memory-stock-tables';
import { InMemoryOrderRecords } from './in-memory-order-records';

/** Returns in an in-memory table. */
export class InMemoryReturnRepository extends InMemoryOrderRecords<StockReturn> implements ReturnRepository {
  constructor(tables: InMemoryStockTables, tx?: InMemoryTransaction) {
    super(tables.returns, tx, 'Returns');
  }
}
