import { type PreparedStatement, prepared, type Row, type SqlSession } from '@platform/mikro-orm';
import {
  type AdjustOutcome,
  adjustmentRefusal,
  type HoldOutcome,
  holdRefusal,
  type MovementContext,
  Product,
  ProductDetails,
  type ProductPageQuery,
  type ProductRepository,
  removalRefusal,
  type RemoveOutcome,
  type Settlement,
  STOCK_MAX,
  type UpdateOutcome,
  updateRefusal,
} from '@stock/domain';
import { MONEY_COLUMN } from './product-schema';
import { writeContext } from './write-context';

/**
 * How often a write refused for a condition that turned out to hold (a concurrent writer moved the row) is tried again.
 */
const ATTEMPTS = 5;

type Dialect = 'postgresql' | 'sqlite';

/**
 * The stock rules of @stock/domain as the conditions of the conditional
 * writes: the atomic guard, checked and written under the row's lock. Each is
 * the rule named beside it, with its bounds taken from the domain; a refused
 * write asks the rule itself why, of the row as it stands. The stock-rules
 * contract suite holds rule and guard together at the edges.
 */
const GUARD = {
  /** holdRefusal: quantity (?) ≤ in stock − reserved. */
  hold: '"quantity_in_stock" - "reserved_quantity" >= ?',
  /**
   * adjustmentRefusal: reserved ≤ in stock + delta (?) ≤ STOCK_MAX. Summed as a bigint: on PostgreSQL an
   * int4 sum past STOCK_MAX would be an error, not a refusal.
   */
  adjust: `cast("quantity_in_stock" as bigint) + ? between "reserved_quantity" and ${STOCK_MAX}`,
  /** updateRefusal: reserved ≤ the new stock (?), and the version is the one expected (?) when one is. */
  update: (versioned: boolean) => `"reserved_quantity" <= ?${versioned ? ' and "version" = ?' : ''}`,
  /** removalRefusal: nothing held. */
  remove: '"reserved_quantity" = 0',
  /** settlementRefusal: quantity (?) ≤ reserved. */
  settle: '"reserved_quantity" >= ?',
} as const;

/** The repository's fixed statements for one dialect; the bench's raw baselines send the same ones. */
export interface ProductStatements {
  readonly columns: string;
  readonly insert: PreparedStatement;
  readonly findById: PreparedStatement;
  readonly list: PreparedStatement;
  update(versioned: boolean): PreparedStatement;
  readonly adjust: PreparedStatement;
  readonly remove: PreparedStatement;
  readonly hold: PreparedStatement;
  readonly commit: PreparedStatement;
  readonly release: PreparedStatement;
}

/**
 * A conditional write and, when it is refused, the row as it stands, so the
 * caller learns why. On PostgreSQL one statement does both: the write in a
 * data-modifying CTE, the current row read from the same snapshot. On SQLite
 * the write answers its row itself, and a refused one is read right after.
 */
function conditional(dialect: Dialect, write: string, columns: string): string {
  if (dialect === 'sqlite') return `${write} returning true as "written", ${columns}`;
  return `with "written" as (${write} returning ${columns})
    select true as "written", ${columns} from "written"
    union all
    select false, ${columns} from "product" where "id" = ? and not exists (select 1 from "written")`;
}

function statements(dialect: Dialect): ProductStatements {
  const price = MONEY_COLUMN[dialect].name;
  const columns = `"id", "name", "description", "${price}", "quantity_in_stock", "reserved_quantity", "version"`;
  const next = '"write_context" = ?, "version" = "version" + 1';
  const write = (sql: string) => prepared(conditional(dialect, sql, columns));
  const update = (versioned: boolean) =>
    write(
      `update "product" set "name" = ?, "description" = ?, "${price}" = ?, "quantity_in_stock" = ?, ${next} where "id" = ? and ${GUARD.update(versioned)}`,
    );
  const [unversioned, versioned] = [update(false), update(true)];
  return {
    columns,
    insert: prepared(
      `insert into "product" ("name", "description", "${price}", "quantity_in_stock", "reserved_quantity", "write_context", "version") values (?, ?, ?, ?, 0, ?, 1) returning ${columns}`,
    ),
    findById: prepared(`select ${columns} from "product" where "id" = ?`),
    list: prepared(`select ${columns} from "product" where "id" > ? order by "id" limit ?`),
    update: (isVersioned) => (isVersioned ? versioned : unversioned),
    adjust: write(
      `update "product" set "quantity_in_stock" = "quantity_in_stock" + ?, ${next} where "id" = ? and ${GUARD.adjust}`,
    ),
    remove: write(`delete from "product" where "id" = ? and ${GUARD.remove}`),
    hold: write(
      `update "product" set "reserved_quantity" = "reserved_quantity" + ?, ${next} where "id" = ? and ${GUARD.hold}`,
    ),
    commit: prepared(
      `update "product" set "quantity_in_stock" = "quantity_in_stock" - ?, "reserved_quantity" = "reserved_quantity" - ?, ${next} where "id" = ? and ${GUARD.settle} returning ${columns}`,
    ),
    release: prepared(
      `update "product" set "reserved_quantity" = "reserved_quantity" - ?, ${next} where "id" = ? and ${GUARD.settle} returning ${columns}`,
    ),
  };
}

const cache = new Map<Dialect, ProductStatements>();

/** The statements of one dialect, built once: each text keeps one prepared name for the life of the process. */
export function productStatements(dialect: Dialect): ProductStatements {
  let sql = cache.get(dialect);
  if (!sql) cache.set(dialect, (sql = statements(dialect)));
  return sql;
}

/**
 * What a guarded write answers when made, the stock rule that says why it is refused, and the error if it never
 * settles.
 */
interface GuardedOutcome<Done, Refusal> {
  written(product: Product): Done;
  refusal(current: Product): Refusal | undefined;
  readonly giveUp: string;
}

/**
 * Products through MikroORM, one statement per call on the session it is
 * handed (a transaction's, or one outside any); the fixed statements are
 * prepared (ADR 0014). Each write is one
 * conditional statement; the ledger trigger appends its movement in that same
 * statement. Rows map straight to the domain's Product.
 */
export class MikroOrmProductRepository implements ProductRepository {
  private readonly sql: ProductStatements;
  private readonly money: (typeof MONEY_COLUMN)[Dialect];

  constructor(private readonly session: SqlSession) {
    this.money = MONEY_COLUMN[session.dialect];
    this.sql = productStatements(session.dialect);
  }

  async add(details: ProductDetails, context: MovementContext): Promise<Product> {
    const [row] = await this.session.all(this.sql.insert, [
      details.name,
      details.description,
      this.price(details),
      details.quantityInStock,
      writeContext('created', context),
    ]);
    return this.toProduct(row!);
  }

  async findById(id: number): Promise<Product | undefined> {
    const [row] = await this.session.all(this.sql.findById, [id]);
    return row && this.toProduct(row);
  }

  async findMany(ids: readonly number[]): Promise<Product[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const rows = await this.session.all(
      `select ${this.sql.columns} from "product" where "id" in (${unique.map(() => '?').join(', ')}) order by "id"`,
      unique,
    );
    return rows.map((row) => this.toProduct(row));
  }

  async list({ after, limit }: ProductPageQuery): Promise<Product[]> {
    const rows = await this.session.all(this.sql.list, [after, limit]);
    return rows.map((row) => this.toProduct(row));
  }

  async update(
    id: number,
    details: ProductDetails,
    expectedVersion: number | undefined,
    context: MovementContext,
  ): Promise<UpdateOutcome> {
    const versioned = expectedVersion !== undefined;
    const params = [
      details.name,
      details.description,
      this.price(details),
      details.quantityInStock,
      writeContext('updated', context),
      id,
      details.quantityInStock,
      ...(versioned ? [expectedVersion] : []),
    ];
    return this.guarded(this.sql.update(versioned), params, id, {
      written: (product) => ({ status: 'updated', product }),
      refusal: (current) => updateRefusal(current, details.quantityInStock, expectedVersion),
      giveUp: `Product ${id} kept changing under ${ATTEMPTS} attempts to update it.`,
    });
  }

  async adjustStock(id: number, delta: number, context: MovementContext): Promise<AdjustOutcome> {
    return this.guarded(this.sql.adjust, [delta, writeContext('adjusted', context), id, delta], id, {
      written: (product) => ({ status: 'adjusted', product }),
      refusal: (current) => adjustmentRefusal(current, delta),
      giveUp: `Stock of product ${id} kept changing under ${ATTEMPTS} attempts to adjust it by ${delta}.`,
    });
  }

  async remove(id: number): Promise<RemoveOutcome> {
    return this.guarded(this.sql.remove, [id], id, {
      written: () => ({ status: 'removed' }),
      refusal: removalRefusal,
      giveUp: `Product ${id} kept changing under ${ATTEMPTS} attempts to remove it.`,
    });
  }

  async hold(id: number, quantity: number, context: MovementContext): Promise<HoldOutcome> {
    return this.guarded(this.sql.hold, [quantity, writeContext('reserved', context), id, quantity], id, {
      written: (product) => ({ status: 'held', product }),
      refusal: (current) => holdRefusal(current, quantity),
      giveUp: `Product ${id} kept changing under ${ATTEMPTS} attempts to hold ${quantity}.`,
    });
  }

  async settle(
    id: number,
    quantity: number,
    settlement: Settlement,
    context: MovementContext,
  ): Promise<Product | undefined> {
    const [row] =
      settlement === 'committed'
        ? await this.session.all(this.sql.commit, [quantity, quantity, writeContext(settlement, context), id, quantity])
        : await this.session.all(this.sql.release, [quantity, writeContext(settlement, context), id, quantity]);
    return row && this.toProduct(row);
  }

  /**
   * Runs a guarded write and answers what it did: written, the product
   * missing, or the stock rule's refusal of the row as it stands. A refused
   * write whose row the rule allows was refused for a row a concurrent writer
   * has since moved: it is tried again, ATTEMPTS times at most.
   */
  private async guarded<Done, Refusal>(
    sql: PreparedStatement,
    params: unknown[],
    id: number,
    outcome: GuardedOutcome<Done, Refusal>,
  ): Promise<Done | Refusal | { status: 'not-found' }> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const row = await this.write(sql, params, id);
      if (!row) return { status: 'not-found' };
      const product = this.toProduct(row);
      if (row.written) return outcome.written(product);
      const refusal = outcome.refusal(product);
      if (refusal) return refusal;
    }
    throw new Error(outcome.giveUp);
  }

  /**
   * Runs a conditional write; answers the written row, the refused one as it stands (`written` false), or nothing when
   * the product is missing.
   */
  private async write(sql: PreparedStatement, params: unknown[], id: number): Promise<Row | undefined> {
    if (this.session.dialect === 'postgresql') return (await this.session.all(sql, [...params, id]))[0];
    const [written] = await this.session.all(sql, params);
    if (written) return written;
    const [current] = await this.session.all(this.sql.findById, [id]);
    return current && { ...current, written: false };
  }

  private price(details: ProductDetails): string | number {
    return this.money.type.convertToDatabaseValue(details.price, this.session.platform);
  }

  private toProduct(row: Row): Product {
    const price = this.money.type.convertToJSValue(row[this.money.name] as never, this.session.platform);
    const details = ProductDetails.restore({
      name: String(row.name),
      description: String(row.description),
      price,
      quantityInStock: Number(row.quantity_in_stock),
    });
    return Product.of(Number(row.id), details, Number(row.version), Number(row.reserved_quantity));
  }
}
