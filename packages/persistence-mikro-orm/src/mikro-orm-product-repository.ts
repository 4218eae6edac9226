import { type EntitySchema, type MikroORM, RequestContext, TransactionContext } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import {
  type AdjustOutcome,
  Product,
  type ProductDetails,
  type ProductPageQuery,
  type ProductRepository,
  STOCK_MAX,
  STOCK_MIN,
  type UpdateOutcome,
  validateProductDetails,
} from '@stock/domain';
import { type Dialect, MONEY_COLUMN, type ProductRow } from './product-schema';

/** How often a refused adjustment is retried when the stock changed between the refusal and the look at why. */
const ADJUST_ATTEMPTS = 100;

/**
 * Every write is one statement (insert, conditional update, delete): no read
 * before a write and no unit-of-work flush, so nothing is half-written and no
 * concurrent writer is lost. Failure paths read afterwards, only to say why.
 */
export class MikroOrmProductRepository implements ProductRepository {
  constructor(
    private readonly orm: MikroORM,
    private readonly schema: EntitySchema<ProductRow>,
    private readonly dialect: Dialect,
  ) {}

  /** The transaction's EntityManager inside one, else the request's, else a fresh fork. */
  private get em(): SqlEntityManager {
    const name = this.orm.em.name;
    return (TransactionContext.getEntityManager(name) ?? RequestContext.getEntityManager(name) ?? this.orm.em.fork()) as SqlEntityManager;
  }

  async add(details: ProductDetails): Promise<Product> {
    const valid = validateProductDetails(details);
    const id = await this.em.insert(this.schema, { ...valid, version: 1 });
    return Product.of(Number(id), valid, 1);
  }

  async findById(id: number): Promise<Product | undefined> {
    const row = await this.em.findOne(this.schema, { id }, { disableIdentityMap: true });
    return row ? toProduct(row) : undefined;
  }

  async list({ after, limit }: ProductPageQuery): Promise<Product[]> {
    const rows = await this.em.find(this.schema, { id: { $gt: after } }, { orderBy: { id: 'asc' }, limit, disableIdentityMap: true });
    return rows.map(toProduct);
  }

  async update(id: number, details: ProductDetails, expectedVersion?: number): Promise<UpdateOutcome> {
    const valid = validateProductDetails(details);
    const em = this.em;
    const money = MONEY_COLUMN[this.dialect];
    const condition = expectedVersion === undefined ? '' : ' and "version" = ?';
    const rows = await em.execute<Record<string, unknown>[]>(
      `update "product" set "name" = ?, "description" = ?, "${money.name}" = ?, "quantity_in_stock" = ?, "version" = "version" + 1
       where "id" = ?${condition} returning *`,
      [valid.name, valid.description, money.type.convertToDatabaseValue(valid.price, em.getPlatform()), valid.quantityInStock, id, ...(expectedVersion === undefined ? [] : [expectedVersion])],
    );
    if (rows[0]) return { status: 'updated', product: this.fromRaw(em, rows[0]) };
    const current = await this.currentRow(em, id);
    return current ? { status: 'version-mismatch', currentVersion: Number(current.version) } : { status: 'not-found' };
  }

  async adjustStock(id: number, delta: number): Promise<AdjustOutcome> {
    const em = this.em;
    for (let attempt = 0; attempt < ADJUST_ATTEMPTS; attempt++) {
      // One conditional statement: the bound check and the write happen together, under the row's lock.
      // bigint: on PostgreSQL an int4 sum past 2147483647 would be an error, not a refusal.
      const rows = await em.execute<Record<string, unknown>[]>(
        `update "product" set "quantity_in_stock" = "quantity_in_stock" + ?, "version" = "version" + 1
         where "id" = ? and cast("quantity_in_stock" as bigint) + ? between ? and ? returning *`,
        [delta, id, delta, STOCK_MIN, STOCK_MAX],
      );
      if (rows[0]) return { status: 'adjusted', product: this.fromRaw(em, rows[0]) };
      const current = await this.currentRow(em, id);
      if (!current) return { status: 'not-found' };
      const available = Number(current.quantity_in_stock);
      const next = available + delta;
      if (next < STOCK_MIN || next > STOCK_MAX) return { status: 'out-of-bounds', available };
      // Another writer moved the stock between the refusal and this look: the adjustment may fit now.
    }
    throw new Error(`Stock of product ${id} kept changing under ${ADJUST_ATTEMPTS} attempts to adjust it by ${delta}.`);
  }

  async remove(id: number): Promise<boolean> {
    return (await this.em.nativeDelete(this.schema, { id })) > 0;
  }

  private async currentRow(em: SqlEntityManager, id: number): Promise<{ version: number; quantity_in_stock: number } | undefined> {
    const rows = await em.execute<{ version: number; quantity_in_stock: number }[]>('select "version", "quantity_in_stock" from "product" where "id" = ?', [id]);
    return rows[0];
  }

  /** A row as the database returned it (column names, database types) to a Product. */
  private fromRaw(em: SqlEntityManager, row: Record<string, unknown>): Product {
    return toProduct(em.map(this.schema, row));
  }
}

function toProduct(row: ProductRow): Product {
  return Product.of(row.id, row, Number(row.version));
}
