import { type Row, type SqlSession, timeOf } from '@platform/persistence';
import {
  type StockTransfer,
  transferKey,
  type TransferPage,
  type TransferPageQuery,
  type TransferRepository,
  type TransferStatus,
} from '@stock/domain';

const COLUMNS =
  '"id", "product_id", "from_location_id", "to_location_id", "quantity", "reference", "status", "created_at", "updated_at"';

/** 0 for a transfer in transit, 1 for one ended: the list's first key (TransferKey). */
const RANK = `(case when "status" = 'in-transit' then 0 else 1 end)`;

/** Stock transfers in SQL, one statement per call on the session handed over. */
export class SqlTransferRepository implements TransferRepository {
  constructor(private readonly session: SqlSession) {}

  /** On PostgreSQL a second transaction claiming the same reference waits here for the first to end. */
  async claim(transfer: StockTransfer): Promise<'claimed' | 'taken'> {
    const rows = await this.session.all(
      `insert into "stock_transfer" (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("reference") do nothing returning "id"`,
      [
        transfer.id,
        transfer.productId,
        transfer.fromLocationId,
        transfer.toLocationId,
        transfer.quantity,
        transfer.reference,
        transfer.status,
        this.time(transfer.createdAt),
        this.time(transfer.updatedAt),
      ],
    );
    return rows.length > 0 ? 'claimed' : 'taken';
  }

  async findById(id: string): Promise<StockTransfer | undefined> {
    const [row] = await this.session.all(`select ${COLUMNS} from "stock_transfer" where "id" = ?`, [id]);
    return row && toTransfer(row);
  }

  async findByReference(reference: string): Promise<StockTransfer | undefined> {
    const [row] = await this.session.all(`select ${COLUMNS} from "stock_transfer" where "reference" = ?`, [reference]);
    return row && toTransfer(row);
  }

  /** One statement, one row past the page to know whether another follows. */
  async list({ limit, after, status, productId }: TransferPageQuery): Promise<TransferPage> {
    const conditions: string[] = [];
    const values: unknown[] = [];
    if (status !== undefined) {
      conditions.push('"status" = ?');
      values.push(status);
    }
    if (productId !== undefined) {
      conditions.push('"product_id" = ?');
      values.push(productId);
    }
    if (after) {
      const rank = after.inTransit ? 0 : 1;
      const at = this.time(after.createdAt);
      conditions.push(`(${RANK} > ? or (${RANK} = ? and ("created_at" < ? or ("created_at" = ? and "id" < ?))))`);
      values.push(rank, rank, at, at, after.id);
    }
    const where = conditions.length > 0 ? `where ${conditions.join(' and ')}` : '';
    const rows = await this.session.all(
      `select ${COLUMNS} from "stock_transfer" ${where} order by ${RANK}, "created_at" desc, "id" desc limit ?`,
      [...values, limit + 1],
    );
    const items = rows.slice(0, limit).map(toTransfer);
    return rows.length > limit ? { items, next: transferKey(items[items.length - 1]!) } : { items };
  }

  async transition(
    id: string,
    status: Exclude<TransferStatus, 'in-transit'>,
    at: Date,
  ): Promise<StockTransfer | undefined> {
    const [row] = await this.session.all(
      `update "stock_transfer" set "status" = ?, "updated_at" = ? where "id" = ? and "status" = 'in-transit' returning ${COLUMNS}`,
      [status, this.time(at), id],
    );
    return row && toTransfer(row);
  }

  /** timestamptz on PostgreSQL (sent as ISO text), epoch milliseconds on SQLite. */
  private time(date: Date): string | number {
    return this.session.dialect === 'postgresql' ? date.toISOString() : date.getTime();
  }
}

function toTransfer(row: Row): StockTransfer {
  return {
    id: String(row.id),
    productId: Number(row.product_id),
    fromLocationId: Number(row.from_location_id),
    toLocationId: Number(row.to_location_id),
    quantity: Number(row.quantity),
    reference: String(row.reference),
    status: row.status as TransferStatus,
    createdAt: timeOf(row.created_at),
    updatedAt: timeOf(row.updated_at),
  };
}
