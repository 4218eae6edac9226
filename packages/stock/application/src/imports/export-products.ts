import type { UnitOfWork } from '@platform/kernel';
import { DEFAULT_LOCATION_CODE, type LevelView, type Product, type StockTransaction } from '@stock/domain';
import type { ImportRow } from './import-row';

/** One product at one location, in the import's columns: what re-imported answers `unchanged`. */
export interface ExportRow {
  readonly id: number;
  readonly sku: string | null;
  readonly name: string;
  readonly description: string;
  readonly price: Product['price'];
  readonly locationCode: string;
  readonly onHand: number;
  readonly backorderLimit: number;
  readonly lowStockThreshold: number;
}

/** An export row as the import reads it: every value as text, a product without a SKU an empty cell. */
export function exportCells(row: ExportRow): Required<ImportRow> {
  return {
    id: String(row.id),
    sku: row.sku ?? '',
    name: row.name,
    description: row.description,
    price: row.price.toString(),
    locationCode: row.locationCode,
    onHand: String(row.onHand),
    backorderLimit: String(row.backorderLimit),
    lowStockThreshold: String(row.lowStockThreshold),
  };
}

export const EXPORT_BATCH_SIZE = 500;

/** A product's levels to export: every one it has, or its default location's (empty) when it has none. */
function exportedLevels(
  levels: readonly LevelView[] | undefined,
): readonly Pick<LevelView, 'locationCode' | 'onHand'>[] {
  return levels && levels.length > 0 ? levels : [{ locationCode: DEFAULT_LOCATION_CODE, onHand: 0 }];
}

export class ExportProducts {
  constructor(private readonly unitOfWork: UnitOfWork<StockTransaction>) {}

  /**
   * Every product with its stock, one row per location it has a level at (so
   * every product at least once, at its default location), in id then
   * location order. Read a keyset batch of products and their levels at a
   * time, so any number of them streams in bounded memory.
   */
  async *execute(batchSize = EXPORT_BATCH_SIZE): AsyncGenerator<ExportRow[]> {
    for (let after = 0; ;) {
      // Two reads of committed state, each a statement of its own: no transaction is held while the client reads.
      const batch = await this.unitOfWork.run((tx) => tx.products.list({ after, limit: batchSize }), {
        singleCall: true,
      });
      if (batch.length === 0) return;
      const ids = batch.map((product) => product.id);
      const levels = await this.unitOfWork.run((tx) => tx.stock.listMany(ids), { singleCall: true });
      yield batch.flatMap((product) =>
        exportedLevels(levels.get(product.id)).map(({ locationCode, onHand }) => ({
          id: product.id,
          sku: product.sku,
          name: product.name,
          description: product.description,
          price: product.price,
          locationCode,
          onHand,
          backorderLimit: product.backorderLimit,
          lowStockThreshold: product.lowStockThreshold,
        })),
      );
      if (batch.length < batchSize) return;
      after = batch[batch.length - 1]!.id;
    }
  }
}
