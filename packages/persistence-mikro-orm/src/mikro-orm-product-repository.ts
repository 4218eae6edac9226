import { type EntityManager, type EntitySchema, type MikroORM, RequestContext } from '@mikro-orm/core';
import { Product, type ProductDetails, type ProductPageQuery, type ProductRepository, validateProductDetails } from '@stock/domain';
import type { ProductRow } from './product-schema';

/**
 * Every write is one statement (insert, update or delete by id): no read before
 * a write, no unit-of-work flush, so nothing is ever half-written.
 */
export class MikroOrmProductRepository implements ProductRepository {
  constructor(
    private readonly orm: MikroORM,
    private readonly schema: EntitySchema<ProductRow>,
  ) {}

  /** The request's EntityManager when a request scope is open, a fresh fork otherwise. */
  private get em(): EntityManager {
    return RequestContext.getEntityManager(this.orm.em.name) ?? this.orm.em.fork();
  }

  async add(details: ProductDetails): Promise<Product> {
    const valid = validateProductDetails(details);
    const id = await this.em.insert(this.schema, { ...valid });
    return Product.of(Number(id), valid);
  }

  async findById(id: number): Promise<Product | undefined> {
    const row = await this.em.findOne(this.schema, { id }, { disableIdentityMap: true });
    return row ? toProduct(row) : undefined;
  }

  async list({ after, limit }: ProductPageQuery): Promise<Product[]> {
    const rows = await this.em.find(this.schema, { id: { $gt: after } }, { orderBy: { id: 'asc' }, limit, disableIdentityMap: true });
    return rows.map(toProduct);
  }

  async update(id: number, details: ProductDetails): Promise<Product | undefined> {
    const valid = validateProductDetails(details);
    const changed = await this.em.nativeUpdate(this.schema, { id }, { ...valid });
    return changed > 0 ? Product.of(id, valid) : undefined;
  }

  async remove(id: number): Promise<boolean> {
    return (await this.em.nativeDelete(this.schema, { id })) > 0;
  }
}

function toProduct(row: ProductRow): Product {
  return Product.of(row.id, row);
}
