import { type PreparedStatement, type Row, type SqlSession } from '@platform/mikro-orm';
import type {
  DetailsUpdate,
  MovementContext,
  Product,
  ProductDetails,
  ProductPageQuery,
  ProductRepository,
  ProductSearch,
  RemoveOutcome,
  UpdateOutcome,
} from '@stock/domain';
import { SkuTakenError } from '@stock/domain';
import { postgresBatchStatements } from './batch-statements';
import { toProduct } from './product-rows';
import { searchStatement } from './product-search-sql';
import { MONEY_COLUMN } from './product-schema';
import { type ProductStatements, productStatements } from './product-statements';
import { type TraceIdProvider, writeContext } from './write-context';

export { type ProductStatements, productStatements } from './product-statements';

/**
 * Products through MikroORM on the session it is handed (a transaction's, or
 * one outside any); the fixed statements are prepared (ADR 0014). Their stock
 * is written by MikroOrmStockLevelRepository, except a new product's, which
 * `add` puts at the default location: on PostgreSQL in the insert's own
 * statement, on SQLite in a second one of the caller's transaction. The
 * ledger trigger appends the `created` movement.
 */
export class MikroOrmProductRepository implements ProductRepository {
  private readonly sql: ProductStatements;

  constructor(
    private readonly session: SqlSession,
    private readonly traceOf?: TraceIdProvider,
  ) {
    this.sql = productStatements(session.dialect);
  }

  async add(details: ProductDetails, context: MovementContext): Promise<Product> {
    const [row] = await this.session
      .all(this.sql.insert, [
        details.name,
        details.description,
        this.price(details),
        details.quantityInStock,
        details.backorderLimit ?? 0,
        details.lowStockThreshold ?? 0,
        details.sku ?? null,
        writeContext('created', context, this.traceOf),
      ])
      .catch(skuTaken(details.sku));
    const product = toProduct(this.session, row!);
    if (this.sql.insertLevel) await this.session.run(this.sql.insertLevel, [product.id, product.quantityInStock]);
    return product;
  }

  /** PostgreSQL: one statement for the batch (batch-statements.ts); SQLite: `add` after `add`, in-process. */
  async addMany(details: readonly ProductDetails[], context: MovementContext): Promise<Product[]> {
    if (details.length === 0) return [];
    if (this.session.dialect !== 'postgresql') {
      const added: Product[] = [];
      for (const each of details) added.push(await this.add(each, context));
      return added;
    }
    const rows = await this.session
      .all(postgresBatchStatements().insert, [
        details.map((each) => each.name),
        details.map((each) => each.description),
        details.map((each) => this.price(each)),
        details.map((each) => each.quantityInStock),
        details.map((each) => each.backorderLimit ?? 0),
        details.map((each) => each.lowStockThreshold ?? 0),
        details.map((each) => each.sku ?? null),
        writeContext('created', context),
      ])
      .catch(skuTakenAmong(details.map((each) => each.sku)));
    return rows.map((row) => toProduct(this.session, row));
  }

  async findById(id: number): Promise<Product | undefined> {
    const [row] = await this.session.all(this.sql.findById, [id]);
    return row && toProduct(this.session, row);
  }

  async findMany(ids: readonly number[]): Promise<Product[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const rows = await this.session.all(
      `select ${this.sql.columns} from "product" where "id" in (${unique.map(() => '?').join(', ')}) order by "id"`,
      unique,
    );
    return rows.map((row) => toProduct(this.session, row));
  }

  async list({ after, limit, stockState }: ProductPageQuery): Promise<Product[]> {
    const rows = await this.session.all(this.sql.list(stockState), [after, limit]);
    return rows.map((row) => toProduct(this.session, row));
  }

  async findBySku(sku: string): Promise<Product | undefined> {
    const [row] = await this.session.all(this.sql.findBySku, [sku]);
    return row && toProduct(this.session, row);
  }

  async findManyBySku(skus: readonly string[]): Promise<Product[]> {
    const unique = [...new Set(skus.map((sku) => sku.toLowerCase()))];
    if (unique.length === 0) return [];
    // The unique index on lower("sku") answers each.
    const rows = await this.session.all(
      `select ${this.sql.columns} from "product" where lower("sku") in (${unique.map(() => '?').join(', ')}) order by "id"`,
      unique,
    );
    return rows.map((row) => toProduct(this.session, row));
  }

  async search(query: ProductSearch): Promise<Product[]> {
    const { statement, params } = searchStatement(this.session.dialect, query);
    const rows = await this.session.all(statement, params);
    return rows.map((row) => toProduct(this.session, row));
  }

  async updateDetails(
    id: number,
    details: ProductDetails,
    expectedVersion: number | undefined,
  ): Promise<UpdateOutcome> {
    const versioned = expectedVersion !== undefined;
    const row = await this.write(this.sql.updateDetails(versioned), id, [
      details.name,
      details.description,
      this.price(details),
      details.backorderLimit ?? null,
      details.lowStockThreshold ?? null,
      details.sku === undefined ? 1 : 0,
      details.sku ?? null,
      id,
      ...(versioned ? [expectedVersion] : []),
    ]).catch(skuTaken(details.sku));
    if (!row) return { status: 'not-found' };
    if (row.written) return { status: 'updated', product: toProduct(this.session, row) };
    return { status: 'version-mismatch', currentVersion: Number(row.version) };
  }

  /** PostgreSQL: one statement for the batch (batch-statements.ts); SQLite: `updateDetails` after another. */
  async updateDetailsMany(updates: readonly DetailsUpdate[]): Promise<Product[]> {
    if (updates.length === 0) return [];
    if (this.session.dialect !== 'postgresql') {
      const updated: Product[] = [];
      for (const { id, details, expectedVersion } of updates) {
        const outcome = await this.updateDetails(id, details, expectedVersion);
        if (outcome.status === 'updated') updated.push(outcome.product);
      }
      return updated;
    }
    const details = updates.map((update) => update.details);
    const rows = await this.session
      .all(postgresBatchStatements().updateDetails, [
        updates.map((update) => update.id),
        updates.map((update) => update.expectedVersion),
        details.map((each) => each.name),
        details.map((each) => each.description),
        details.map((each) => this.price(each)),
        details.map((each) => each.backorderLimit ?? null),
        details.map((each) => each.lowStockThreshold ?? null),
        details.map((each) => each.sku === undefined),
        details.map((each) => each.sku ?? null),
      ])
      .catch(skuTakenAmong(details.map((each) => each.sku)));
    const byId = new Map(rows.map((row) => [Number(row.id), toProduct(this.session, row)]));
    return updates.flatMap(({ id }) => byId.get(id) ?? []);
  }

  async remove(id: number): Promise<RemoveOutcome> {
    const row = await this.write(this.sql.remove, id, [id, id]);
    if (!row) return { status: 'not-found' };
    return row.written ? { status: 'removed' } : { status: 'blocked' };
  }

  /**
   * Runs a conditional write; answers the written row, the refused one as it stands (`written` false), or nothing when
   * the product is missing. Read after a refusal from the statement's snapshot: exact when the caller holds the
   * product's lock (StockLevelRepository.lock), as the use cases that write it do.
   */
  private async write(sql: PreparedStatement, id: number, params: unknown[]): Promise<Row | undefined> {
    if (this.session.dialect === 'postgresql') return (await this.session.all(sql, [...params, id]))[0];
    const [written] = await this.session.all(sql, params);
    if (written) return written;
    const [current] = await this.session.all(this.sql.findById, [id]);
    return current && { ...current, written: false };
  }

  private price(details: ProductDetails): string | number {
    return MONEY_COLUMN[this.session.dialect].type.convertToDatabaseValue(details.price, this.session.platform);
  }
}

/** The unique index that keeps SKUs unique ignoring case (lower("sku")), as both migrations name it. */
export const SKU_UNIQUE_INDEX = 'product_sku_unique';

/**
 * A batch's write refused by the SKU index, as SkuTakenError naming the SKU
 * PostgreSQL's detail names ("Key (lower(sku::text))=(abc-1) already
 * exists."): the batch's SKU that matches it ignoring case, else the text.
 */
function skuTakenAmong(skus: readonly (string | null | undefined)[]): (error: unknown) => never {
  return (error) => {
    const detail = String((error as { detail?: unknown }).detail ?? '');
    const named = /=\((.*)\) already exists/.exec(detail)?.[1];
    const sku = named && (skus.find((each) => each?.toLowerCase() === named.toLowerCase()) ?? named);
    return skuTaken(sku ?? skus.find((each) => each) ?? undefined)(error);
  };
}

/**
 * A write's failure as SkuTakenError when the SKU's unique index refused it (PostgreSQL: 23505 naming the index;
 * SQLite: a UNIQUE failure naming it), so a taken SKU is a 409, never a 500; any other failure as it was.
 */
function skuTaken(sku: string | null | undefined): (error: unknown) => never {
  return (error) => {
    const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
    const refused =
      (code === '23505' && constraint === SKU_UNIQUE_INDEX) ||
      (typeof code === 'string' &&
        code.startsWith('SQLITE_CONSTRAINT') &&
        String(message).includes(`index '${SKU_UNIQUE_INDEX}'`));
    if (refused && sku) throw new SkuTakenError(sku);
    throw error;
  };
}
