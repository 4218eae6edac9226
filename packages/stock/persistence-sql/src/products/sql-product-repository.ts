import type { Row, SqlSession } from '@platform/persistence';
import {
  type DetailsUpdate,
  type MovementContext,
  type Product,
  type ProductDetails,
  type ProductPageQuery,
  type ProductRepository,
  type ProductSearch,
  ProductStock,
  SkuTakenError,
  type UpdateOutcome,
} from '@stock/domain';
import {
  RELEVANCE_RANKS,
  relevanceStatement,
  searchStatement,
  SQLITE_COMMON_TEXT_MATCHES,
  sqliteCountsText,
  sqliteTextMatches,
} from './product-search-sql';
import { ADD_PRODUCT, ADD_PRODUCTS, SQLITE_ADD_PRODUCT, SQLITE_SAVE } from '../stock/product-stock-statements';
import type { TraceIdProvider } from '../stock/sql-product-stock-repository';
import { priceOf, type ProductStatements, productStatements, toProduct } from '../tables/product';
import { MOVEMENT_STATEMENTS, movementValues } from '../tables/stock-movement';

/** The batch statements of the product table alone (PostgreSQL). */
const UPDATE_DETAILS_MANY = `update "product" set "name" = "new"."name", "description" = "new"."description", "price" = "new"."price",
    "backorder_limit" = coalesce("new"."backorder_limit", "product"."backorder_limit"),
    "low_stock_threshold" = coalesce("new"."low_stock_threshold", "product"."low_stock_threshold"),
    "sku" = case when "new"."keep_sku" then "product"."sku" else "new"."sku" end, "version" = "product"."version" + 1
  from unnest(?::integer[], ?::integer[], ?::text[], ?::text[], ?::numeric[], ?::integer[], ?::integer[], ?::boolean[], ?::text[])
    as "new"("product_id", "expected_version", "name", "description", "price", "backorder_limit", "low_stock_threshold", "keep_sku", "sku")
  where "product"."id" = "new"."product_id" and "product"."version" = "new"."expected_version"`;

/**
 * Products in SQL on the session it is handed (a transaction's, or one
 * outside any); the fixed statements are prepared (ADR 0014). Their stock is
 * written by SqlProductStockRepository, except a new product's: `add` writes
 * its row, its first level and the opening movement of its ledger
 * (ProductStock.opening), on PostgreSQL in one statement, on SQLite in three
 * of the caller's transaction.
 */
export class SqlProductRepository implements ProductRepository {
  private readonly sql: ProductStatements;

  constructor(
    private readonly session: SqlSession,
    private readonly traceOf?: TraceIdProvider,
  ) {
    this.sql = productStatements(session.dialect);
  }

  /** PostgreSQL: one statement (ADD_PRODUCT); SQLite: as `addMany` adds each. */
  async add(details: ProductDetails, context: MovementContext): Promise<Product> {
    if (this.session.dialect !== 'postgresql') return (await this.addMany([details], context))[0]!;
    const opening = ProductStock.opening(details);
    const traceId = context.traceId ?? this.traceOf?.();
    const [row] = await this.session
      .rows(ADD_PRODUCT, [
        ...[details.name, details.description, priceOf(this.session, details.price), details.quantityInStock],
        ...[details.backorderLimit ?? 0, details.lowStockThreshold ?? 0, details.sku ?? null, opening.sequence],
        ...[opening.locationId, opening.onHand],
        ...movementValues(0, opening, context, traceId).slice(1),
      ])
      .catch(skuTaken(details.sku));
    return toProduct(this.session, row!);
  }

  /** PostgreSQL: one statement for the batch; SQLite: each product's three, in-process. */
  async addMany(details: readonly ProductDetails[], context: MovementContext): Promise<Product[]> {
    if (details.length === 0) return [];
    const traceId = context.traceId ?? this.traceOf?.();
    const openings = details.map((each) => ProductStock.opening(each));
    if (this.session.dialect !== 'postgresql') {
      const added: Product[] = [];
      for (const [index, each] of details.entries()) {
        const opening = openings[index]!;
        const [row] = await this.session
          .rows(SQLITE_ADD_PRODUCT, [
            each.name,
            each.description,
            Number(priceOf(this.session, each.price)),
            each.quantityInStock,
            each.backorderLimit ?? 0,
            each.lowStockThreshold ?? 0,
            each.sku ?? null,
            opening.sequence,
          ])
          .catch(skuTaken(each.sku));
        const product = toProduct(this.session, row!);
        await this.session.run(SQLITE_SAVE.createLevel, [
          product.id,
          opening.locationId,
          opening.onHand,
          0,
          0,
          0,
          0,
          0,
        ]);
        await this.session.run(MOVEMENT_STATEMENTS.append, movementValues(product.id, opening, context, traceId));
        added.push(product);
      }
      return added;
    }
    const rows = await this.session
      .rows(ADD_PRODUCTS, [
        details.map((each) => each.name),
        details.map((each) => each.description),
        details.map((each) => priceOf(this.session, each.price)),
        details.map((each) => each.quantityInStock),
        details.map((each) => each.backorderLimit ?? 0),
        details.map((each) => each.lowStockThreshold ?? 0),
        details.map((each) => each.sku ?? null),
        openings.map((opening) => opening.locationId),
        openings.map((opening) => opening.kind),
        openings.map((opening) => opening.quantityDelta),
        openings.map((opening) => opening.reservedDelta),
        openings.map((opening) => opening.quantityAfter),
        openings.map((opening) => opening.reservedAfter),
        openings.map((opening) => opening.reasonCode),
        openings.map((opening) => opening.onHand),
        openings.map((opening) => opening.sequence),
        context.reason ?? null,
        context.reservationId ?? null,
        context.requestId ?? null,
        context.actor,
        traceId ?? null,
        context.at,
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
    if (query.sort === 'relevance') return this.searchByRelevance(query);
    const { statement, params } = searchStatement(this.session.dialect, query, await this.textIsCommon(query));
    const rows = await this.session.all(statement, params);
    return rows.map((row) => toProduct(this.session, row));
  }

  /** SQLite: whether the text is common enough to walk the sort's index rather than sort its matches. */
  private async textIsCommon(query: ProductSearch): Promise<boolean> {
    if (!sqliteCountsText(this.session.dialect, query)) return false;
    const { statement, params } = sqliteTextMatches(query.q!);
    const [row] = await this.session.all(statement, params);
    return Number(row?.matches) >= SQLITE_COMMON_TEXT_MATCHES;
  }

  /** Rank by rank from the position's (relevanceStatement), each for what the page still lacks. */
  private async searchByRelevance(query: ProductSearch): Promise<Product[]> {
    const found: Product[] = [];
    for (let rank = Number(query.after?.key ?? 0); rank < RELEVANCE_RANKS && found.length < query.limit; rank++) {
      const { statement, params } = relevanceStatement(
        this.session.dialect,
        { ...query, limit: query.limit - found.length },
        rank,
      );
      const rows = await this.session.all(statement, params);
      found.push(...rows.map((row) => toProduct(this.session, row)));
    }
    return found;
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
      priceOf(this.session, details.price),
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
      .all(
        `${UPDATE_DETAILS_MANY} returning ${this.sql.columns
          .split(', ')
          .map((column) => `"product".${column}`)
          .join(', ')}`,
        [
          updates.map((update) => update.id),
          updates.map((update) => update.expectedVersion),
          details.map((each) => each.name),
          details.map((each) => each.description),
          details.map((each) => priceOf(this.session, each.price)),
          details.map((each) => each.backorderLimit ?? null),
          details.map((each) => each.lowStockThreshold ?? null),
          details.map((each) => each.sku === undefined),
          details.map((each) => each.sku ?? null),
        ],
      )
      .catch(skuTakenAmong(details.map((each) => each.sku)));
    const byId = new Map(rows.map((row) => [Number(row.id), toProduct(this.session, row)]));
    return updates.flatMap(({ id }) => byId.get(id) ?? []);
  }

  async remove(id: number, version: number): Promise<boolean> {
    return (await this.session.run(this.sql.remove, [id, version])) > 0;
  }

  /**
   * Runs a conditional write; answers the written row, the refused one as it stands (`written` false), or nothing when
   * the product is missing. Read after a refusal from the statement's snapshot: exact when the caller holds the
   * product's lock (ProductStockRepository.lock), as the use cases that write it do.
   */
  private async write(
    sql: ReturnType<ProductStatements['updateDetails']>,
    id: number,
    params: unknown[],
  ): Promise<Row | undefined> {
    if (this.session.dialect === 'postgresql') return (await this.session.all(sql, [...params, id]))[0];
    const [written] = await this.session.all(sql, params);
    if (written) return written;
    const [current] = await this.session.all(this.sql.findById, [id]);
    return current && { ...current, written: false };
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
    const detail = (error as { detail?: string }).detail ?? '';
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
