import { type Row, type SqlSession, timeOf } from '@platform/persistence';
import {
  type ReturnDisposition,
  RETURN_DISPOSITIONS,
  type ReturnLine,
  type ReturnRepository,
  type StockReturn,
} from '@stock/domain';

const COLUMNS = '"id", "order_id", "reason", "created_at"';
const LINE_COLUMNS = '"return_id", "product_id", "location_id", "disposition", "quantity"';
/** A return's lines are read back in product, location, then disposition order, as RETURN_DISPOSITIONS lists them. */
const LINE_ORDER = `"product_id", "location_id", case "disposition" ${RETURN_DISPOSITIONS.map((d, i) => `when '${d}' then ${i}`).join(' ')} end`;

/**
 * Returns in SQL, on the session handed over: a stock_return row, and its lines in stock_return_line. A write is two
 * statements (the return, then every line in one insert); a read two queries (the returns, then their lines).
 */
export class SqlReturnRepository implements ReturnRepository {
  constructor(private readonly session: SqlSession) {}

  async add(stockReturn: StockReturn): Promise<void> {
    const { id, orderId, reason, createdAt } = stockReturn;
    await this.session.run(`insert into "stock_return" (${COLUMNS}) values (?, ?, ?, ?)`, [
      id,
      orderId,
      reason,
      this.session.dialect === 'postgresql' ? createdAt.toISOString() : createdAt.getTime(),
    ]);
    await this.session.run(
      `insert into "stock_return_line" (${LINE_COLUMNS}) values ${stockReturn.lines.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      stockReturn.lines.flatMap((line) => [id, line.productId, line.locationId, line.disposition, line.quantity]),
    );
  }

  async findById(id: string): Promise<StockReturn | undefined> {
    return (await this.read('"id" = ?', id))[0];
  }

  async listForOrder(orderId: string): Promise<StockReturn[]> {
    return this.read('"order_id" = ?', orderId);
  }

  /** The returns `where` takes, oldest first (then by id), each with its lines. */
  private async read(where: string, value: string): Promise<StockReturn[]> {
    const rows = await this.session.all(
      `select ${COLUMNS} from "stock_return" where ${where} order by "created_at", "id"`,
      [value],
    );
    if (rows.length === 0) return [];
    const lineRows = await this.session.all(
      `select ${LINE_COLUMNS} from "stock_return_line" where "return_id" in (select "id" from "stock_return" where ${where}) order by ${LINE_ORDER}`,
      [value],
    );
    return rows.map((row) => toReturn(row, lineRows.filter((line) => line.return_id === row.id).map(toLine)));
  }
}

function toReturn(row: Row, lines: ReturnLine[]): StockReturn {
  return {
    id: String(row.id),
    orderId: String(row.order_id),
    lines,
    reason: (row.reason as string | null) ?? null,
    createdAt: timeOf(row.created_at),
  };
}

function toLine(row: Row): ReturnLine {
  return {
    productId: Number(row.product_id),
    locationId: Number(row.location_id),
    quantity: Number(row.quantity),
    disposition: row.disposition as ReturnDisposition,
  };
}
